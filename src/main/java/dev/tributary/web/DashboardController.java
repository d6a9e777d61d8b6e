package dev.tributary.web;

import dev.tributary.auth.AccessGuard;
import dev.tributary.auth.RequestPrincipal;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.PeerUrls;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard page and the snapshot it polls. Any broker serves the whole cluster: placement from
 * its metadata image, offsets from each partition's leader ({@link LeaderSnapshotFetcher}, which
 * bounds the wait), merged by {@link ClusterSnapshots}.
 */
@Controller
class DashboardController {
  private final MetadataCache broker;
  private final BrokerConfig config;
  private final LeaderSnapshotFetcher leaders;
  private final LocalSnapshots localSnapshots;
  private final LiveClusterView liveView;

  private final JsonMapper json;
  private final AccessGuard access;

  private final PeerUrls urls;
  private final RewindEndpoint rewind;
  private final DashboardCatalogue catalogue;

  DashboardController(
      MetadataCache broker,
      BrokerConfig config,
      LeaderSnapshotFetcher leaders,
      LocalSnapshots localSnapshots,
      LiveClusterView liveView,
      JsonMapper json,
      AccessGuard access,
      PeerUrls urls,
      DashboardCatalogue catalogue) {
    this.catalogue = catalogue;
    this.rewind = new RewindEndpoint(liveView::history, config.brokerId(), json);
    this.json = json;
    this.access = access;
    this.urls = urls;
    this.broker = broker;
    this.config = config;
    this.leaders = leaders;
    this.localSnapshots = localSnapshots;
    this.liveView = liveView;
  }

  @GetMapping("/")
  String dashboard(Model model, HttpServletRequest request, Locale locale) {
    model.addAttribute("brokerId", config.brokerId());
    model.addAttribute("lang", locale.getLanguage());
    model.addAttribute("catalogue", catalogue.scriptJson(locale));
    model.addAttribute("securityOn", access.enabled());
    model.addAttribute("principal", RequestPrincipal.of(request));
    model.addAttribute(
        "canAct",
        access.allows(request, AclOperation.ADMIN, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME));
    model.addAttribute(
        "produceExample",
        "curl -X POST -H 'Content-Type: application/vnd.kafka.json.v2+json' "
            + "--data '{\"records\":[{\"value\":{\"hello\":\"world\"}}]}' "
            + urls.base(broker.config().host(), broker.config().port())
            + "/topics/demo");
    return "dashboard";
  }

  /**
   * {@code scope=cluster} (default): every broker and every partition, see {@link ClusterSnapshot}.
   * {@code scope=local}: only the partitions this broker hosts, see {@link LocalSnapshot}. While
   * the broker is starting both answer 503 (through the API error handler), which the page shows as
   * "broker unreachable". With {@code at} (epoch milliseconds, scope {@code cluster} only): the
   * cluster as this broker recorded it at that moment ({@link RewindEndpoint}).
   */
  @GetMapping("/dashboard/state")
  @ResponseBody
  ResponseEntity<?> state(
      @RequestParam(defaultValue = ClusterSnapshot.SCOPE) String scope,
      @RequestParam(name = "leading_only", defaultValue = "false") boolean leadingOnly,
      @RequestParam(name = "at", required = false) String at,
      @RequestHeader(name = "If-None-Match", required = false) String ifNoneMatch) {
    if (at != null) {
      return rewind.stateAt(scope, at);
    }
    return switch (scope) {
      case ClusterSnapshot.SCOPE -> ResponseEntity.ok(clusterSnapshot());
      case LocalSnapshot.SCOPE -> local(leadingOnly, ifNoneMatch);
      default ->
          ResponseEntity.badRequest()
              .body(
                  Map.of(
                      "error_code",
                      40000,
                      "message",
                      "scope must be 'cluster' or 'local', not '" + scope + "'"));
    };
  }

  /**
   * The scripts' messages in {@code lang} (en or zh; anything else is English), as the page embeds
   * them: for the JavaScript unit tests, which run without the page.
   */
  @GetMapping(path = "/dashboard/messages", produces = MediaType.APPLICATION_JSON_VALUE)
  @ResponseBody
  String messages(@RequestParam(defaultValue = "en") String lang) {
    return catalogue.scriptJson(DashboardLocales.supported(Locale.forLanguageTag(lang)));
  }

  /** What history this broker keeps: the span the page's rewind scrubber can reach. */
  @GetMapping("/dashboard/history")
  @ResponseBody
  ResponseEntity<?> history() {
    return rewind.extent();
  }

  /** Records per second by topic and lag by group over the history kept, for the page's charts. */
  @GetMapping("/dashboard/history/series")
  @ResponseBody
  ResponseEntity<?> historySeries(@RequestParam(name = "from", required = false) String from) {
    return rewind.series(from);
  }

  /**
   * The local snapshot with a strong ETag of its bytes; 304 when it matches {@code ifNoneMatch}.
   * The live views of other brokers poll this five times a second while a page is open, so an
   * unchanged answer costs them nothing to parse ({@link PeerSnapshots}).
   */
  private ResponseEntity<?> local(boolean leadingOnly, String ifNoneMatch) {
    LocalSnapshot snapshot = localSnapshots.local(leadingOnly);
    byte[] body = json.writeValueAsBytes(snapshot);
    String etag = "\"" + Long.toHexString(fnv1a(body)) + "\"";
    if (etag.equals(ifNoneMatch)) {
      return ResponseEntity.status(HttpStatus.NOT_MODIFIED).eTag(etag).build();
    }
    return ResponseEntity.ok().eTag(etag).contentType(MediaType.APPLICATION_JSON).body(body);
  }

  /**
   * A 64-bit FNV-1a hash of the body: a change detector between brokers, not a security measure.
   */
  private static long fnv1a(byte[] bytes) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  private ClusterSnapshot clusterSnapshot() {
    int self = config.brokerId();
    MetadataImage image = broker.metadata();
    LocalSnapshot own = localSnapshots.local(true);
    Set<Integer> asked = ClusterSnapshots.brokersToAsk(image, self);
    List<BrokerImage> endpoints = asked.stream().flatMap(id -> image.broker(id).stream()).toList();
    Map<Integer, LocalSnapshot> answers = new HashMap<>(leaders.fetch(endpoints));
    answers.put(self, own);
    Set<Integer> unreachable = new TreeSet<>(asked);
    unreachable.removeAll(answers.keySet());
    Throughput.Observed rates = liveView.rates();
    return ClusterSnapshots.merge(
        liveView.context(liveView.nowMs()),
        image,
        answers,
        unreachable,
        rates.byTopic(),
        rates.byBroker());
  }
}
