package dev.tributary.api;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.consumer.CommitFailedException;
import dev.tributary.consumer.ConsumerAlreadyExistsException;
import dev.tributary.consumer.ConsumerInstanceNotFoundException;
import dev.tributary.consumer.IllegalConsumerStateException;
import dev.tributary.consumer.NoOffsetForPartitionException;
import dev.tributary.consumer.TooManyConsumerInstancesException;
import dev.tributary.consumer.UndeliverableRecordException;
import dev.tributary.log.KafkaStorageException;
import dev.tributary.log.LogStorageException;
import dev.tributary.metadata.StaleMetadataException;
import dev.tributary.metadata.ratis.MetadataQuorumTimeoutException;
import dev.tributary.server.ControllerUnreachableException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.util.DisconnectedClientHelper;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;

/**
 * Maps every failure to {@code {"error_code", "message"}} with the right status. The table is in
 * docs/api.md; codes follow REST Proxy's habit of HTTP status × 100 + a subcode. Unknown exceptions
 * are logged and answered 500 without leaking internals.
 */
@RestControllerAdvice
class ApiExceptionHandler {
  private static final Logger logger = LoggerFactory.getLogger(ApiExceptionHandler.class);

  /** Says in one line that a client went away before its answer was written (not an error). */
  private static final DisconnectedClientHelper disconnected =
      new DisconnectedClientHelper(ApiExceptionHandler.class.getName() + ".disconnected");

  @ExceptionHandler(Throwable.class)
  ResponseEntity<ErrorResponse> handle(Throwable thrown) {
    return answerTo(thrown);
  }

  /**
   * The answer to a request that failed with {@code thrown}; null when the client went away (then
   * there is nobody to answer). For the paths that answer outside Spring MVC.
   */
  static ResponseEntity<ErrorResponse> answerTo(Throwable thrown) {
    Throwable error =
        thrown instanceof CompletionException && thrown.getCause() != null
            ? thrown.getCause()
            : thrown;
    if (disconnected.checkAndLogClientDisconnectedException(error)) {
      // The client closed the connection (a cut link, a consumer closed mid long-poll): there is
      // nobody to answer, and no stack trace to log. Null: handled, nothing to write.
      return null;
    }
    return toResponse(error);
  }

  static ResponseEntity<ErrorResponse> toResponse(Throwable error) {
    if (error instanceof CompletionException && error.getCause() != null) {
      error = error.getCause();
    }
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof RequestSizeFilter.RequestTooLargeException tooLarge) {
        return respond(HttpStatus.CONTENT_TOO_LARGE, 41302, tooLarge.getMessage());
      }
      if (cause instanceof BodyDeadlineFilter.BodyTimeoutException timeout) {
        return ResponseEntity.status(HttpStatus.REQUEST_TIMEOUT)
            .header(HttpHeaders.CONNECTION, "close") // do not wait for the rest of it
            .contentType(MediaType.APPLICATION_JSON)
            .body(new ErrorResponse(40801, timeout.getMessage()));
      }
      if (cause instanceof StreamConstraintsException constraintBroken) {
        RestException e = JsonBodyErrors.constraintBroken(constraintBroken);
        return respond(e.status, e.errorCode, e.getMessage());
      }
    }
    String message = error.getMessage();
    if (error instanceof RemoteApiException e) {
      return respond(HttpStatus.valueOf(e.status()), e.errorCode(), message);
    } else if (error instanceof RestException e) {
      return respond(e.status, e.errorCode, message);
    } else if (error instanceof ConsumerInstanceNotFoundException) {
      return respond(HttpStatus.NOT_FOUND, 40403, message);
    } else if (error instanceof TooManyConsumerInstancesException) {
      return respond(HttpStatus.TOO_MANY_REQUESTS, 42901, message);
    } else if (error instanceof ConsumerAlreadyExistsException) {
      return respond(HttpStatus.CONFLICT, 40902, message);
    } else if (error instanceof IllegalConsumerStateException) {
      return respond(HttpStatus.CONFLICT, 40903, message);
    } else if (error instanceof CommitFailedException) {
      return respond(HttpStatus.CONFLICT, 40910, message);
    } else if (error instanceof NoOffsetForPartitionException) {
      return respond(HttpStatus.CONFLICT, 40911, message);
    } else if (error instanceof UndeliverableRecordException) {
      return respond(HttpStatus.NOT_ACCEPTABLE, 40601, message);
    } else if (error instanceof LogStorageException && !(error instanceof KafkaStorageException)) {
      return respond(HttpStatus.INTERNAL_SERVER_ERROR, 50003, "Storage error: " + message);
    } else if (error instanceof ApiException e) {
      return RestErrors.forKafkaError(e);
    } else if (error instanceof AsyncRequestTimeoutException) {
      return respond(
          HttpStatus.SERVICE_UNAVAILABLE, 50302, "The request took too long and was abandoned");
    } else if (error instanceof MetadataQuorumTimeoutException
        || error instanceof StaleMetadataException) {
      return respond(
          HttpStatus.SERVICE_UNAVAILABLE,
          50307,
          "The metadata quorum did not commit the change in time (is a majority of the controllers up?): "
              + message);
    } else if (error instanceof java.io.UncheckedIOException
        && error.getCause() != null
        && error.getCause().getClass().getName().startsWith("org.apache.ratis")) {
      return respond(
          HttpStatus.SERVICE_UNAVAILABLE,
          50307,
          "The metadata quorum is not available: " + message);
    } else if (error instanceof ControllerUnreachableException) {
      return respond(
          HttpStatus.SERVICE_UNAVAILABLE, 50305, "The controller could not be reached: " + message);
    } else if (error instanceof TimeoutException) {
      return respond(HttpStatus.GATEWAY_TIMEOUT, 50401, message);
    } else if (error instanceof HttpMediaTypeNotSupportedException e) {
      return respond(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 41501, unsupportedContentType(e));
    } else if (error instanceof HttpMediaTypeNotAcceptableException e) {
      return respond(
          HttpStatus.NOT_ACCEPTABLE,
          40602,
          "None of the types in Accept can be answered here; this endpoint answers "
              + e.getSupportedMediaTypes());
    } else if (error instanceof HttpRequestMethodNotSupportedException e) {
      return respond(
          HttpStatus.METHOD_NOT_ALLOWED, 40501, "Method " + e.getMethod() + " is not allowed here");
    } else if (error instanceof MissingServletRequestParameterException e) {
      return respond(
          HttpStatus.BAD_REQUEST, 40003, "Missing query parameter '" + e.getParameterName() + "'");
    } else if (error instanceof MethodArgumentTypeMismatchException e) {
      return respond(
          HttpStatus.BAD_REQUEST,
          40003,
          "Invalid value '" + e.getValue() + "' for '" + e.getName() + "'");
    } else if (error instanceof HttpMessageNotReadableException e) {
      if (e.getCause() instanceof JacksonException unreadable) {
        // A body Spring's converter read: answered as the bodies the controllers read themselves.
        RestException answer = JsonBodyErrors.of(unreadable);
        return respond(answer.status, answer.errorCode, answer.getMessage());
      }
      return respond(HttpStatus.BAD_REQUEST, 40001, "The request body could not be read");
    } else if (error instanceof NoResourceFoundException e) {
      return respond(HttpStatus.NOT_FOUND, 40400, "No such endpoint: /" + e.getResourcePath());
    }
    logger.error("Unexpected error answering a request", error);
    return respond(
        HttpStatus.INTERNAL_SERVER_ERROR,
        50001,
        "Internal error: " + error.getClass().getSimpleName());
  }

  /**
   * "Unsupported Content-Type 'text/plain'; use ...", naming the concrete types the endpoint takes
   * (a pattern such as {@code application/*+json} is accepted, but is not a type a client sends).
   */
  private static String unsupportedContentType(HttpMediaTypeNotSupportedException e) {
    MediaType sent = e.getContentType(); // null when the request has none
    String message =
        sent == null
            ? "The body has no Content-Type"
            : "Unsupported Content-Type '" + sent.getType() + "/" + sent.getSubtype() + "'";
    List<String> supported =
        e.getSupportedMediaTypes().stream()
            .filter(type -> !type.isWildcardType() && !type.isWildcardSubtype())
            .map(type -> type.getType() + "/" + type.getSubtype())
            .distinct()
            .toList();
    if (supported.isEmpty()) {
      return message;
    }
    String last = supported.get(supported.size() - 1);
    return message
        + "; use "
        + (supported.size() == 1
            ? last
            : String.join(", ", supported.subList(0, supported.size() - 1)) + " or " + last);
  }

  static ResponseEntity<ErrorResponse> respond(HttpStatus status, int errorCode, String message) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(new ErrorResponse(errorCode, message));
  }
}
