package dev.tributary.api;

import java.util.Locale;
import org.springframework.http.HttpStatus;

/**
 * How keys and values are embedded in JSON, chosen by media type as in REST Proxy v2: {@code
 * application/vnd.kafka.binary.v2+json} carries base64 strings; {@code
 * application/vnd.kafka.json.v2+json} and plain {@code application/json} carry any JSON value,
 * stored as its compact JSON text.
 */
enum EmbeddedFormat {
  BINARY("application/vnd.kafka.binary.v2+json"),
  JSON("application/vnd.kafka.json.v2+json");

  final String mediaType;

  EmbeddedFormat(String mediaType) {
    this.mediaType = mediaType;
  }

  /** The format of a request body, from its Content-Type (absent means JSON). */
  static EmbeddedFormat ofContentType(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return JSON;
    }
    String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return switch (type) {
      case "application/vnd.kafka.binary.v2+json" -> BINARY;
      case "application/vnd.kafka.json.v2+json",
          "application/vnd.kafka.v2+json",
          "application/json" ->
          JSON;
      default ->
          throw new RestException(
              HttpStatus.UNSUPPORTED_MEDIA_TYPE,
              41501,
              "Unsupported Content-Type '"
                  + type
                  + "'; use application/vnd.kafka.json.v2+json, "
                  + "application/vnd.kafka.binary.v2+json or application/json");
    };
  }

  /** The format a reader asks for in Accept (first match wins; anything else means JSON). */
  static EmbeddedFormat ofAccept(String accept) {
    if (accept != null
        && accept.toLowerCase(Locale.ROOT).contains("application/vnd.kafka.binary.v2+json")) {
      return BINARY;
    }
    return JSON;
  }
}
