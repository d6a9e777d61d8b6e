package dev.tributary.web;

import dev.tributary.common.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * The guided demo's step as its runner ({@code dev.tributary.demo}) last told this broker, shown by
 * the dashboard as a banner ({@code demo} in the state). Kept in memory only, and only for {@value
 * #EXPIRY_MS} ms after the last update: a runner that was killed (Ctrl-C, a crash) never clears its
 * banner, so it must fade by itself. The runner sets it on every running broker, so whichever
 * broker serves the page shows it.
 *
 * <p>Thread-safety: one volatile reference to an immutable row; the last writer wins.
 */
@Component
class DemoBanner {
  static final long EXPIRY_MS = 60_000;
  static final int MAX_STEPS = 50;
  static final int MAX_TITLE_CHARS = 200;
  static final int MAX_TEXT_CHARS = 2_000;
  static final int MAX_TOPICS = 20;
  static final int MAX_PARTITIONS = 200;

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern PARTITION = Pattern.compile("[a-zA-Z0-9._-]{1,249}-[0-9]{1,9}");
  private static final Set<String> FIELDS =
      Set.of("name", "title", "step", "steps", "text", "topics", "partitions", "clear");

  private final Time time;
  private volatile ClusterSnapshot.DemoRow current;

  DemoBanner(Time time) {
    this.time = time;
  }

  /** The banner to show at {@code nowMs}: empty when none was set or it has expired. */
  Optional<ClusterSnapshot.DemoRow> current(long nowMs) {
    ClusterSnapshot.DemoRow row = current;
    if (row == null || nowMs - row.updatedMs() >= EXPIRY_MS) {
      return Optional.empty();
    }
    return Optional.of(row);
  }

  /** Shows {@code row} from now on, stamped with this broker's clock. */
  ClusterSnapshot.DemoRow set(ClusterSnapshot.DemoRow row) {
    ClusterSnapshot.DemoRow stamped = row.at(time.milliseconds());
    current = stamped;
    return stamped;
  }

  void clear() {
    current = null;
  }

  /** The request body was not a banner; the message says what is wrong, for a 400 40002. */
  static final class InvalidBanner extends RuntimeException {
    InvalidBanner(String message) {
      super(message);
    }
  }

  /**
   * Reads a {@code POST /dashboard/actions/demo} body: {@code {"clear": true}}, or a banner with
   * {@code name}, {@code title}, {@code step}, {@code steps}, {@code text} and optional {@code
   * topics} and {@code partitions}. Returns empty for a clear.
   *
   * @throws InvalidBanner if the body is anything else
   */
  static Optional<ClusterSnapshot.DemoRow> parse(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new InvalidBanner("The body must be a JSON object: a demo banner or {\"clear\": true}");
    }
    for (String field : body.propertyNames()) {
      if (!FIELDS.contains(field)) {
        throw new InvalidBanner(
            "Unknown field \""
                + abbreviate(field)
                + "\"; a demo banner has name, title, step, steps, text, topics, partitions"
                + " (or clear)");
      }
    }
    JsonNode clear = body.get("clear");
    if (clear != null) {
      if (!clear.isBoolean() || !clear.asBoolean() || body.size() != 1) {
        throw new InvalidBanner("To clear the banner send {\"clear\": true} and nothing else");
      }
      return Optional.empty();
    }
    String name = text(body, "name", 40);
    if (!NAME.matcher(name).matches()) {
      throw new InvalidBanner(
          "name must be a demo's name: lower-case letters, digits and '-', at most 40");
    }
    int steps = integer(body, "steps", 1, MAX_STEPS);
    int step = integer(body, "step", 1, steps);
    return Optional.of(
        new ClusterSnapshot.DemoRow(
            name,
            text(body, "title", MAX_TITLE_CHARS),
            step,
            steps,
            text(body, "text", MAX_TEXT_CHARS),
            names(body, "topics", TOPIC, MAX_TOPICS),
            names(body, "partitions", PARTITION, MAX_PARTITIONS),
            0));
  }

  private static String text(JsonNode body, String field, int maxChars) {
    JsonNode value = body.get(field);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw new InvalidBanner(field + " must be a non-empty string");
    }
    if (value.asString().length() > maxChars) {
      throw new InvalidBanner(field + " must be at most " + maxChars + " characters");
    }
    return value.asString();
  }

  private static int integer(JsonNode body, String field, int min, int max) {
    JsonNode value = body.get(field);
    if (value == null
        || !value.isIntegralNumber()
        || !value.canConvertToInt()
        || value.asInt() < min
        || value.asInt() > max) {
      throw new InvalidBanner(field + " must be an integer from " + min + " to " + max);
    }
    return value.asInt();
  }

  private static List<String> names(JsonNode body, String field, Pattern legal, int max) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray() || value.size() > max) {
      throw new InvalidBanner(field + " must be an array of at most " + max + " names");
    }
    List<String> names = new ArrayList<>();
    for (JsonNode item : value) {
      if (!item.isString() || !legal.matcher(item.asString()).matches()) {
        throw new InvalidBanner(
            field
                + " must hold "
                + (field.equals("topics") ? "topic names" : "topic-partition keys such as orders-0")
                + ", not "
                + abbreviate(item.toString()));
      }
      names.add(item.asString());
    }
    return names;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }
}
