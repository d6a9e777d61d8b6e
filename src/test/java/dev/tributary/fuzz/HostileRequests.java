package dev.tributary.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of hostile HTTP requests to a broker's public API, for the fuzz of one broker
 * ({@code api.HostileInputFuzzTest}) and of a cluster whose links are cut ({@code
 * e2e.NetworkFuzz}). No Spring and no I/O: it yields requests; the caller sends them (raw, byte for
 * byte, since some targets hold escapes {@code java.net.URI} refuses) and judges the answers.
 *
 * <p>Two streams, each from the seed alone: {@link #next()}, random and mutated JSON bodies,
 * content types, query strings and path segments at every endpoint (the requests {@code
 * HostileInputFuzzTest} sent before this class existed, seed for seed, in the same order); and
 * {@link #nextOnParameters()}, a well-formed request to an endpoint that reads query parameters,
 * with one or two of them (or the partition in the path) replaced by an escape that does not decode
 * ({@link #MALFORMED}) or a number out of range ({@link #OUT_OF_RANGE}). Drawing from one stream
 * never moves the other.
 */
public final class HostileRequests {
  public static final String JSON = "application/json";
  public static final String V2_JSON = "application/vnd.kafka.v2+json";
  public static final String EMBEDDED_JSON = "application/vnd.kafka.json.v2+json";
  public static final String EMBEDDED_BINARY = "application/vnd.kafka.binary.v2+json";

  /** Escapes that are not percent-encoded UTF-8 text, each its own way. */
  public static final List<String> MALFORMED =
      List.of(
          "%zz", // not hex
          "%", // bare
          "%f", // one digit
          "1%", // bare, after a digit
          "%ff%fe", // bytes UTF-8 never uses
          "%c0%b1", // '1' overlong, in two bytes
          "%c0%af", // '/' overlong, in two bytes
          "%e0%80%af", // '/' overlong, in three
          "%f0%80%80%b1", // '1' overlong, in four
          "%ed%a0%80", // a surrogate (U+D800)
          "%f4%90%80%80", // past U+10FFFF
          "1%00", // NUL after a digit
          "%1b"); // ESC, a control character

  /** Numbers no parameter takes: out of int, out of long, not finite, not decimal. */
  public static final List<String> OUT_OF_RANGE =
      List.of(
          "-1",
          "-2147483649",
          "2147483648",
          "4294967296",
          "9223372036854775807",
          "9223372036854775808",
          "-9223372036854775809",
          "184467440737095516160000",
          "NaN",
          "Infinity",
          "-Infinity",
          "1e309",
          "-1e309",
          "1e3",
          "1.5",
          "0x10",
          "+1",
          "-0",
          "",
          "%201", // " 1"
          "1_000",
          "%d9%a1"); // U+0661, an Arabic-Indic digit one

  /**
   * The names the requests aim at: real ones, so that a request gets past the first check.
   *
   * @param topic a topic holding a record at offset 0 of partition 0 (the fuzz produces to it)
   * @param group a consumer group with an instance {@code c} (REST Proxy v2)
   * @param clusterId the cluster's id, for the v3 paths
   * @param faultActionsOn the cluster takes the dashboard's fault actions: then they go to broker
   *     0, which no cluster registers, so that the fuzz never crashes or pauses a broker itself
   */
  public record Names(String topic, String group, String clusterId, boolean faultActionsOn) {}

  /**
   * One request. {@code target} is the path and raw query, sent as written; an empty {@code
   * contentType} or {@code accept} means no such header.
   */
  public record Request(
      String method, String target, String contentType, String accept, String body) {
    /** Whether this request, accepted, would append to {@code topic}. */
    public boolean producesTo(String topic) {
      return method.equals("POST")
          && (target.startsWith("/topics/" + topic + "?")
              || target.equals("/topics/" + topic)
              || target.startsWith("/topics/" + topic + "/partitions/"));
    }

    @Override
    public String toString() {
      return method
          + " "
          + abbreviate(target)
          + " ["
          + contentType
          + "] accept ["
          + accept
          + "] "
          + abbreviate(body);
    }
  }

  private static final String[] CONTENT_TYPES = {
    JSON,
    V2_JSON,
    EMBEDDED_JSON,
    EMBEDDED_BINARY,
    "text/plain",
    "application/xml",
    "application/json; charset=utf-16",
    "multipart/form-data; boundary=x",
    "",
    "*/*",
    "application/vnd.kafka.avro.v2+json",
    "application/x-www-form-urlencoded"
  };
  private static final String[] ACCEPTS = {
    EMBEDDED_JSON, EMBEDDED_BINARY, V2_JSON, JSON, "text/html", "*/*", "application/xml", ""
  };
  private static final String[] SEGMENTS = {
    "%00",
    "..",
    "%2e%2e",
    "a%2Fb",
    "-1",
    "0",
    "999999999999",
    "2147483648",
    "NaN",
    "1e3",
    "%F0%9F%92%A9",
    "x".repeat(300),
    "__consumer_offsets",
    "%20",
    "null",
    "%7B%7D",
    "'",
    "%22",
    "a;b",
    "%25",
    // escapes that do not decode to text (java.net.URI lets these through; '%zz' and a bare '%',
    // which it refuses, come from nextOnParameters and HostileEncodingApiTest)
    "%ff",
    "%c0%af",
    "%e0%80%af",
    "%1b"
  };

  /** {@code {p}} in a path is the partition, a parameter like the query's. */
  private static final String PARTITION = "{p}";

  private final Names names;
  private final Random random;
  private final Random parameters;

  public HostileRequests(long seed, Names names) {
    this.names = names;
    this.random = new Random(seed);
    this.parameters = new Random(seed ^ 0x5DEECE66DL);
  }

  /** The next request of the first stream: anything, anywhere. */
  public Request next() {
    String topic = names.topic();
    String t = random.nextInt(4) == 0 ? pick(random, SEGMENTS) : topic;
    String p =
        random.nextInt(3) == 0 ? pick(random, SEGMENTS) : String.valueOf(random.nextInt(3) - 1);
    String g = random.nextInt(4) == 0 ? pick(random, SEGMENTS) : names.group();
    String i = random.nextInt(4) == 0 ? pick(random, SEGMENTS) : "c";
    String cid = random.nextInt(4) == 0 ? pick(random, SEGMENTS) : names.clusterId();
    String instance = "/consumers/" + g + "/instances/" + i;
    String actionBroker = names.faultActionsOn() ? "0" : p;
    String[][] endpoints = {
      {"POST", "/topics/" + t},
      {"POST", "/topics/" + t + "/partitions/" + p},
      {"GET", "/topics/" + t + "/partitions/" + p + "/records"},
      {"GET", "/topics/" + t + "/partitions/" + p + "/offsets"},
      {"GET", "/topics/" + t},
      {"GET", "/topics/" + t + "/partitions/" + p},
      {"POST", "/v3/clusters/" + cid + "/topics"},
      {"PATCH", "/v3/clusters/" + cid + "/topics/" + t},
      {
        "PUT",
        "/v3/clusters/"
            + cid
            + "/topics/"
            + t
            + "/configs/"
            + pick(random, new String[] {"retention.ms", "cleanup.policy", "x"})
      },
      {"GET", "/v3/clusters/" + cid + "/topics/" + t + "/partitions/" + p + "/replicas"},
      {"GET", "/v3/clusters/" + cid + "/brokers/" + p},
      {"POST", "/consumers/" + g},
      {"POST", instance + "/subscription"},
      {"GET", instance + "/subscription"},
      {"POST", instance + "/assignments"},
      {"POST", instance + "/positions"},
      {"POST", instance + "/positions/beginning"},
      {"GET", instance + "/records"},
      {"POST", instance + "/offsets"},
      {"GET", instance + "/offsets"},
      {"GET", "/v3/clusters/" + cid + "/consumer-groups/" + g + "/lags"},
      {"GET", "/dashboard/state"},
      {
        "POST",
        "/dashboard/actions/brokers/"
            + actionBroker
            + "/"
            + pick(random, new String[] {"crash", "pause-fetching", "x"})
      },
      {"POST", "/internal/v1/replica/fetch"},
      {"POST", "/internal/v1/groups/join"},
      {"DELETE", "/v3/clusters/" + cid + "/topics/" + pick(random, SEGMENTS)},
    };
    String[] endpoint = endpoints[random.nextInt(endpoints.length)];
    String query = random.nextInt(2) == 0 ? "" : "?" + randomQuery(random);
    String body =
        endpoint[0].equals("GET") && random.nextInt(3) > 0 ? "" : randomBody(random, topic);
    return new Request(
        endpoint[0], endpoint[1] + query, pick(random, CONTENT_TYPES), pick(random, ACCEPTS), body);
  }

  /**
   * The next request of the second stream: a well-formed request to an endpoint that reads query
   * parameters (every {@code @RequestParam} of the public API and the dashboard, and the internal
   * consumer fetch's), with one or two of them, or the partition in the path, hostile: an escape
   * that does not decode or a number out of range; sometimes a parameter given twice, or a hostile
   * name. The well-formed values never make a request wait (offset 0 of a topic with a record,
   * timeout 0).
   */
  public Request nextOnParameters() {
    Random r = parameters;
    String topic = names.topic();
    String records = "{\"records\":[{\"value\":1}]}";
    String instance = "/consumers/" + names.group() + "/instances/c";
    String v3 = "/v3/clusters/" + names.clusterId();
    // method, path, content type, body, then name=well-formed value pairs
    String[][] endpoints = {
      {"POST", "/topics/" + topic, EMBEDDED_JSON, records, "acks", "1"},
      {
        "POST", "/topics/" + topic + "/partitions/" + PARTITION, EMBEDDED_JSON, records, "acks", "1"
      },
      {
        "GET",
        "/topics/" + topic + "/partitions/" + PARTITION + "/records",
        "",
        "",
        "offset",
        "0",
        "max_bytes",
        "1024",
        "timeout",
        "0"
      },
      {
        "GET",
        "/topics/" + topic + "/partitions/" + PARTITION + "/offsets",
        "",
        "",
        "timestamp",
        "0"
      },
      {"GET", instance + "/records", "", "", "timeout", "0", "max_bytes", "1024"},
      {
        "GET",
        v3 + "/acls",
        "",
        "",
        "resource_type",
        "TOPIC",
        "resource_name",
        topic,
        "pattern_type",
        "LITERAL",
        "principal",
        "User:a",
        "host",
        "*",
        "operation",
        "READ",
        "permission",
        "ALLOW"
      },
      {"GET", v3 + "/balance", "", "", "exclude", "1"},
      {"GET", "/dashboard/state", "", "", "scope", "local", "leading_only", "true", "at", "0"},
      {"GET", "/dashboard/messages", "", "", "lang", "en"},
      {"GET", "/dashboard/history/series", "", "", "from", "0"},
      {
        "GET",
        "/internal/v1/consumer/fetch",
        "",
        "",
        "topic",
        topic,
        "partition",
        "0",
        "offset",
        "0",
        "max_bytes",
        "1024",
        "max_wait_ms",
        "0"
      },
    };
    String[] endpoint = endpoints[r.nextInt(endpoints.length)];
    List<String[]> params = new ArrayList<>();
    for (int k = 4; k < endpoint.length; k += 2) {
      params.add(new String[] {endpoint[k], endpoint[k + 1]});
    }
    String path = endpoint[1];
    boolean inPath = path.contains(PARTITION);
    // Which to spoil: the partition in the path counts as one more parameter.
    int choices = params.size() + (inPath ? 1 : 0);
    int spoiled = r.nextInt(choices);
    int alsoSpoiled = r.nextInt(3) == 0 ? r.nextInt(choices) : -1;
    if (inPath) {
      boolean spoilPath = spoiled == params.size() || alsoSpoiled == params.size();
      path = path.replace(PARTITION, spoilPath ? hostileValue(r) : "0");
    }
    List<String> query = new ArrayList<>();
    for (int k = 0; k < params.size(); k++) {
      String name = params.get(k)[0];
      String value = params.get(k)[1];
      if (k == spoiled || k == alsoSpoiled) {
        switch (r.nextInt(6)) {
          case 0 -> query.add(name + "=" + value + "&" + name + "=" + hostileValue(r)); // twice
          case 1 -> query.add(name + pick(r, MALFORMED) + "=" + value); // a hostile name
          default -> query.add(name + "=" + hostileValue(r));
        }
      } else if (r.nextInt(4) > 0) {
        query.add(name + "=" + value);
      }
    }
    String target = path + (query.isEmpty() ? "" : "?" + String.join("&", query));
    return new Request(endpoint[0], target, endpoint[2], pick(r, ACCEPTS), endpoint[3]);
  }

  private static String hostileValue(Random r) {
    return r.nextBoolean() ? pick(r, MALFORMED) : pick(r, OUT_OF_RANGE);
  }

  private static String randomQuery(Random random) {
    String[] keys = {
      "offset", "timeout", "max_bytes", "acks", "timestamp", "partition", "seconds", "x", "%ff", ""
    };
    String[] values = {
      "-1",
      "0",
      "1",
      "abc",
      "9999999999999999999",
      "1e9",
      "",
      "all",
      "2",
      "%00",
      "60001",
      "NaN",
      "%ff%fe",
      "%c0%af",
      "%ed%a0%80",
      "%cd%b8"
    };
    List<String> parts = new ArrayList<>();
    for (int n = random.nextInt(3) + 1; n > 0; n--) {
      parts.add(pick(random, keys) + "=" + pick(random, values));
    }
    return String.join("&", parts);
  }

  private static String randomBody(Random random, String topic) {
    return switch (random.nextInt(12)) {
      case 0 -> "";
      case 1 -> "{";
      case 2 -> "[".repeat(2_000) + "]".repeat(2_000);
      case 3 -> "{\"records\":[" + "{\"value\":".repeat(600) + "1" + "}".repeat(600) + "]}";
      case 4 -> "{\"records\":[{\"value\":\"" + "x".repeat(2_000_000) + "\"}]}";
      case 5 -> "\u0000\u0001\u0002garbage";
      case 6 -> "{\"records\":[{\"key\":\"a2V5\",\"value\":\"!!notbase64\"}]}";
      case 7 ->
          "{\"records\":[{\"partition\":"
              + pick(random, new String[] {"-1", "99", "\"0\"", "1.5", "9999999999"})
              + ",\"value\":1}]}";
      case 8 ->
          "{\"topics\":["
              + pick(random, new String[] {"1", "null", "\"\"", "[]", "\"" + topic + "\""})
              + "],\"topic_pattern\":\"(\"}";
      case 9 ->
          "{\"offsets\":[{\"topic\":\""
              + topic
              + "\",\"partition\":0,\"offset\":"
              + pick(random, new String[] {"-5", "1e30", "\"x\"", "9223372036854775807", "0"})
              + "}]}";
      case 10 ->
          "{\"topic_name\":\""
              + pick(random, SEGMENTS)
              + "\",\"partitions_count\":"
              + pick(random, new String[] {"0", "-1", "100001", "\"3\"", "3"})
              + ",\"configs\":[{\"name\":\"cleanup.policy\",\"value\":null}]}";
      default -> randomJson(random, 0);
    };
  }

  private static String randomJson(Random random, int depth) {
    if (depth > 4) {
      return "1";
    }
    return switch (random.nextInt(7)) {
      case 0 -> "null";
      case 1 -> String.valueOf(random.nextLong());
      case 2 -> "\"" + pick(random, SEGMENTS) + "\"";
      case 3 -> "true";
      case 4 -> {
        StringBuilder a = new StringBuilder("[");
        for (int n = random.nextInt(3); n > 0; n--) {
          a.append(randomJson(random, depth + 1)).append(n > 1 ? "," : "");
        }
        yield a.append("]").toString();
      }
      default -> {
        String[] keys = {
          "records",
          "value",
          "key",
          "partition",
          "topics",
          "offsets",
          "partitions",
          "name",
          "format",
          "partitions_count",
          "value_schema"
        };
        StringBuilder o = new StringBuilder("{");
        for (int n = random.nextInt(3) + 1; n > 0; n--) {
          o.append("\"")
              .append(pick(random, keys))
              .append("\":")
              .append(randomJson(random, depth + 1))
              .append(n > 1 ? "," : "");
        }
        yield o.append("}").toString();
      }
    };
  }

  private static String pick(Random random, String[] options) {
    return options[random.nextInt(options.length)];
  }

  private static String pick(Random random, List<String> options) {
    return options.get(random.nextInt(options.size()));
  }

  /** {@code s}, or its first 200 characters and its length. */
  public static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…(" + s.length() + " chars)";
  }
}
