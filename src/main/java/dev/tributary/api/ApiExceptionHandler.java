package dev.tributary.api;

import dev.tributary.auth.AccessGuard;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.common.errors.NotEnoughReplicasAfterAppendException;
import dev.tributary.common.errors.NotEnoughReplicasException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.consumer.CommitFailedException;
import dev.tributary.consumer.ConsumerAlreadyExistsException;
import dev.tributary.consumer.ConsumerInstanceNotFoundException;
import dev.tributary.consumer.CoordinatorNotAvailableException;
import dev.tributary.consumer.IllegalConsumerStateException;
import dev.tributary.consumer.NoOffsetForPartitionException;
import dev.tributary.consumer.TooManyConsumerInstancesException;
import dev.tributary.consumer.UndeliverableRecordException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.InvalidRecordException;
import dev.tributary.log.KafkaStorageException;
import dev.tributary.log.LogStorageException;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.RecordTooLargeException;
import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.metadata.StaleMetadataException;
import dev.tributary.metadata.ratis.MetadataQuorumTimeoutException;
import dev.tributary.server.ControllerUnreachableException;
import dev.tributary.transport.http.InternalApi;
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
import tools.jackson.core.exc.StreamConstraintsException;

/**
 * Maps every failure to {@code {"error_code", "message"}} with the right status. The table is in
 * docs/api.md; codes follow REST Proxy's habit of HTTP status × 100 + a subcode. Unknown exceptions
 * are logged and answered 500 without leaking internals.
 */
@RestControllerAdvice
class ApiExceptionHandler {
  private static final Logger logger = LoggerFactory.getLogger(ApiExceptionHandler.class);

  @ExceptionHandler(Throwable.class)
  ResponseEntity<ErrorResponse> handle(Throwable thrown) {
    Throwable error =
        thrown instanceof CompletionException && thrown.getCause() != null
            ? thrown.getCause()
            : thrown;
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
        RestException e = JsonLimits.constraintBroken(constraintBroken);
        return respond(e.status, e.errorCode, e.getMessage());
      }
    }
    String message = error.getMessage();
    if (error instanceof RemoteApiException e) {
      return respond(HttpStatus.valueOf(e.status()), e.errorCode(), message);
    } else if (error instanceof RestException e) {
      return respond(e.status, e.errorCode, message);
    } else if (error instanceof AccessGuard.AccessDeniedException e) {
      return respond(HttpStatus.FORBIDDEN, e.errorCode(), message);
    } else if (error instanceof UnknownTopicOrPartitionException e) {
      return respond(HttpStatus.NOT_FOUND, e.topicExists() ? 40402 : 40401, message);
    } else if (error instanceof TopicExistsException) {
      return respond(HttpStatus.CONFLICT, InternalApi.TOPIC_EXISTS, message);
    } else if (error instanceof InvalidTopicException) {
      return respond(HttpStatus.UNPROCESSABLE_CONTENT, 42201, message);
    } else if (error instanceof InvalidRecordException) {
      return respond(HttpStatus.UNPROCESSABLE_CONTENT, 42205, message);
    } else if (error instanceof InvalidConfigException) {
      return respond(HttpStatus.UNPROCESSABLE_CONTENT, 42202, message);
    } else if (error instanceof InvalidPartitionsException) {
      return respond(HttpStatus.UNPROCESSABLE_CONTENT, 42203, message);
    } else if (error instanceof InvalidReplicationFactorException) {
      return respond(HttpStatus.UNPROCESSABLE_CONTENT, 42204, message);
    } else if (error instanceof CorruptRecordException) {
      // Today the only batches we decode come from our own log (HTTP records are encoded by us), so
      // corruption
      // is a server-side fault. The Kafka-protocol listener will map client-sent corrupt batches to
      // 422.
      return respond(HttpStatus.INTERNAL_SERVER_ERROR, 50002, "Stored data is corrupt: " + message);
    } else if (error instanceof KafkaStorageException) {
      // KAFKA_STORAGE_ERROR (56), retriable: the log directory is offline; the controller moves
      // leadership to another in-sync replica, and a retry reaches it (docs/adr/0015).
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50311, "Storage error: " + message);
    } else if (error instanceof LogStorageException) {
      return respond(HttpStatus.INTERNAL_SERVER_ERROR, 50003, "Storage error: " + message);
    } else if (error instanceof AsyncRequestTimeoutException) {
      return respond(
          HttpStatus.SERVICE_UNAVAILABLE, 50302, "The request took too long and was abandoned");
    } else if (error instanceof InvalidRegistrationException) {
      return respond(HttpStatus.BAD_REQUEST, InternalApi.INVALID_REGISTRATION, message);
    } else if (error instanceof InvalidRequestException) {
      return respond(HttpStatus.BAD_REQUEST, 40002, message);
    } else if (error instanceof RecordTooLargeException) {
      return respond(HttpStatus.CONTENT_TOO_LARGE, 41301, message);
    } else if (error instanceof OffsetOutOfRangeException) {
      return respond(HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE, 41601, message);
    } else if (error instanceof NotEnoughReplicasException) {
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50308, message);
    } else if (error instanceof NotEnoughReplicasAfterAppendException) {
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50309, message);
    } else if (error instanceof FencedLeaderEpochException) {
      return respond(HttpStatus.CONFLICT, InternalApi.FENCED_LEADER_EPOCH, message);
    } else if (error instanceof InvalidUpdateVersionException) {
      return respond(HttpStatus.CONFLICT, InternalApi.INVALID_UPDATE_VERSION, message);
    } else if (error instanceof IneligibleReplicaException) {
      return respond(HttpStatus.CONFLICT, InternalApi.INELIGIBLE_REPLICA, message);
    } else if (error instanceof UnknownLeaderEpochException) {
      return respond(HttpStatus.CONFLICT, 40907, message);
    } else if (error instanceof NotLeaderOrFollowerException) {
      return respond(HttpStatus.MISDIRECTED_REQUEST, 42101, message);
    } else if (error instanceof NotControllerException) {
      return respond(HttpStatus.MISDIRECTED_REQUEST, InternalApi.NOT_CONTROLLER, message);
    } else if (error instanceof StaleBrokerEpochException) {
      return respond(HttpStatus.CONFLICT, InternalApi.STALE_BROKER_EPOCH, message);
    } else if (error instanceof BrokerNotRegisteredException) {
      return respond(HttpStatus.CONFLICT, InternalApi.BROKER_NOT_REGISTERED, message);
    } else if (error instanceof LeaderNotAvailableException) {
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50304, message);
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
    } else if (error instanceof BrokerNotAvailableException) {
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50301, message);
    } else if (error instanceof TimeoutException) {
      return respond(HttpStatus.GATEWAY_TIMEOUT, 50401, message);
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
    } else if (error instanceof CoordinatorNotAvailableException) {
      return respond(HttpStatus.SERVICE_UNAVAILABLE, 50310, message);
    } else if (error instanceof ApiException) {
      return respond(HttpStatus.BAD_REQUEST, 40000, message);
    } else if (error instanceof HttpMediaTypeNotSupportedException e) {
      return respond(
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          41501,
          "Unsupported Content-Type: " + e.getContentType());
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
    } else if (error instanceof HttpMessageNotReadableException) {
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

  private static ResponseEntity<ErrorResponse> respond(
      HttpStatus status, int errorCode, String message) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(new ErrorResponse(errorCode, message));
  }
}
