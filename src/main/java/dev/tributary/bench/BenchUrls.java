package dev.tributary.bench;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Validation of the base URL and topic name, and the request URIs built from them. */
final class BenchUrls {
  /** Kafka's legal topic characters. */
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private BenchUrls() {}

  static URI baseUrl(String raw) {
    String trimmed = raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw;
    URI uri;
    try {
      uri = URI.create(trimmed);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--url must look like http://HOST:PORT, got '" + raw + "'");
    }
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new Args.UsageException("--url must look like http://HOST:PORT, got '" + raw + "'");
    }
    return uri;
  }

  static String topic(String name) {
    if (!TOPIC.matcher(name).matches()) {
      throw new Args.UsageException(
          "--topic may use only letters, digits, '.', '_' and '-': '" + name + "'");
    }
    return name;
  }

  static URI partitionRecords(URI base, String topic, int partition, String acks) {
    return URI.create(base + "/topics/" + topic + "/partitions/" + partition + "?acks=" + acks);
  }

  static URI fetch(
      URI base, String topic, int partition, long offset, long maxBytes, long timeoutMs) {
    return URI.create(
        base
            + "/topics/"
            + topic
            + "/partitions/"
            + partition
            + "/records?offset="
            + offset
            + "&max_bytes="
            + maxBytes
            + "&timeout="
            + timeoutMs);
  }

  static URI offsets(URI base, String topic, int partition) {
    return URI.create(base + "/topics/" + topic + "/partitions/" + partition + "/offsets");
  }

  static URI clusters(URI base) {
    return URI.create(base + "/v3/clusters");
  }

  static URI topics(URI base, String clusterId) {
    return URI.create(
        base + "/v3/clusters/" + URLEncoder.encode(clusterId, StandardCharsets.UTF_8) + "/topics");
  }
}
