package dev.tributary.web;

import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /dashboard/actions/demo} sets the guided demo's banner on this broker, {@code
 * {"clear": true}} or {@code DELETE} clears it (docs/api.md, docs/demos.md). This broker only: the
 * demo's runner tells every running broker. As the other dashboard actions it needs {@code ADMIN}
 * on the cluster when authentication is on (SecurityConfiguration); unlike the fault buttons it
 * changes nothing in the cluster, so it works with {@code tributary.dashboard.fault-actions} off
 * too.
 */
@RestController
class DemoBannerController {
  private final DemoBanner banner;
  private final JsonMapper json;

  DemoBannerController(DemoBanner banner, JsonMapper json) {
    this.banner = banner;
    this.json = json;
  }

  @PostMapping("/dashboard/actions/demo")
  ResponseEntity<Map<String, Object>> set(@RequestBody(required = false) byte[] body) {
    Optional<ClusterSnapshot.DemoRow> row;
    try {
      JsonNode tree = body == null || body.length == 0 ? null : json.readTree(body);
      row = DemoBanner.parse(tree);
    } catch (JacksonException e) {
      return InternalRelay.error(
          HttpStatus.BAD_REQUEST, 40001, "Malformed JSON body: the demo banner could not be read");
    } catch (DemoBanner.InvalidBanner e) {
      return InternalRelay.error(HttpStatus.BAD_REQUEST, 40002, e.getMessage());
    }
    if (row.isEmpty()) {
      return clear();
    }
    ClusterSnapshot.DemoRow shown = banner.set(row.get());
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .body(
            Map.of(
                "message",
                "Demo " + shown.name() + " is at step " + shown.step() + " of " + shown.steps(),
                "expires_ms",
                shown.updatedMs() + DemoBanner.EXPIRY_MS));
  }

  @DeleteMapping("/dashboard/actions/demo")
  ResponseEntity<Map<String, Object>> clear() {
    banner.clear();
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .body(Map.of("message", "No demo banner"));
  }
}
