package dev.tributary.bench;

/** The two embedded formats of the REST Proxy v2 produce API that the generator can send. */
enum PayloadFormat {
  /** Values are base64 of {@code record-size} random bytes. */
  BINARY("application/vnd.kafka.binary.v2+json"),
  /**
   * Values are JSON strings of {@code record-size} ASCII characters (so also {@code record-size}
   * bytes).
   */
  JSON("application/vnd.kafka.json.v2+json");

  final String contentType;

  PayloadFormat(String contentType) {
    this.contentType = contentType;
  }

  static PayloadFormat of(String name) {
    return switch (name) {
      case "binary" -> BINARY;
      case "json" -> JSON;
      default -> throw new Args.UsageException("unknown format '" + name + "'");
    };
  }
}
