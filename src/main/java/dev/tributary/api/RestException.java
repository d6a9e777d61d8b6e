package dev.tributary.api;

import org.springframework.http.HttpStatus;

/**
 * An HTTP-level refusal decided in the web layer (bad query parameter, unsupported media type,
 * ...).
 */
final class RestException extends RuntimeException {
  final HttpStatus status;
  final int errorCode;

  RestException(HttpStatus status, int errorCode, String message) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }

  static RestException badRequest(String message) {
    return new RestException(HttpStatus.BAD_REQUEST, 40002, message);
  }

  static RestException badParameter(String message) {
    return new RestException(HttpStatus.BAD_REQUEST, 40003, message);
  }

  static RestException notFound(int errorCode, String message) {
    return new RestException(HttpStatus.NOT_FOUND, errorCode, message);
  }
}
