package dev.tributary.api;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.transport.http.InternalApi;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The REST face of Kafka's error codes: which HTTP status and REST Proxy code (status × 100 + n)
 * each core refusal gets, by its Kafka error, so that a failure answers the same whether it
 * happened on this broker or came back from the leader a request was forwarded to. The table is
 * docs/api.md's.
 */
final class RestErrors {
  private RestErrors() {}

  static ResponseEntity<ErrorResponse> forKafkaError(ApiException e) {
    String message = e.getMessage();
    Errors error = e.error();
    return switch (error) {
      case UNKNOWN_TOPIC_OR_PARTITION ->
          ApiExceptionHandler.respond(
              HttpStatus.NOT_FOUND,
              e instanceof UnknownTopicOrPartitionException u && u.topicExists() ? 40402 : 40401,
              message);
      case TOPIC_ALREADY_EXISTS ->
          ApiExceptionHandler.respond(HttpStatus.CONFLICT, InternalApi.TOPIC_EXISTS, message);
      case INVALID_TOPIC_EXCEPTION -> respond422(42201, message);
      case INVALID_CONFIG -> respond422(42202, message);
      case INVALID_PARTITIONS -> respond422(42203, message);
      case INVALID_REPLICATION_FACTOR -> respond422(42204, message);
      case INVALID_REPLICA_ASSIGNMENT -> respond422(42206, message);
      case REASSIGNMENT_IN_PROGRESS ->
          ApiExceptionHandler.respond(HttpStatus.CONFLICT, 40914, message);
      case NO_REASSIGNMENT_IN_PROGRESS ->
          ApiExceptionHandler.respond(HttpStatus.NOT_FOUND, 40412, message);
      case INVALID_RECORD -> respond422(42205, message);
      case CORRUPT_MESSAGE ->
          // The only batches a REST request stores are the ones this broker built, so corruption
          // is a fault of the server's (stored data, or a peer's answer), not of the client.
          ApiExceptionHandler.respond(
              HttpStatus.INTERNAL_SERVER_ERROR, 50002, "Stored data is corrupt: " + message);
      case KAFKA_STORAGE_ERROR ->
          // Retriable: the log directory is offline; the controller moves leadership to another
          // in-sync replica, and a retry reaches it (docs/adr/0015).
          ApiExceptionHandler.respond(
              HttpStatus.SERVICE_UNAVAILABLE, 50311, "Storage error: " + message);
      case INVALID_REQUEST -> ApiExceptionHandler.respond(HttpStatus.BAD_REQUEST, 40002, message);
      case INVALID_REGISTRATION ->
          ApiExceptionHandler.respond(
              HttpStatus.BAD_REQUEST, InternalApi.INVALID_REGISTRATION, message);
      case MESSAGE_TOO_LARGE ->
          ApiExceptionHandler.respond(HttpStatus.CONTENT_TOO_LARGE, 41301, message);
      case OFFSET_OUT_OF_RANGE ->
          ApiExceptionHandler.respond(HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE, 41601, message);
      case NOT_ENOUGH_REPLICAS ->
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50308, message);
      case NOT_ENOUGH_REPLICAS_AFTER_APPEND ->
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50309, message);
      case FENCED_LEADER_EPOCH ->
          ApiExceptionHandler.respond(
              HttpStatus.CONFLICT, InternalApi.FENCED_LEADER_EPOCH, message);
      case INVALID_UPDATE_VERSION ->
          ApiExceptionHandler.respond(
              HttpStatus.CONFLICT, InternalApi.INVALID_UPDATE_VERSION, message);
      case INELIGIBLE_REPLICA ->
          ApiExceptionHandler.respond(HttpStatus.CONFLICT, InternalApi.INELIGIBLE_REPLICA, message);
      case UNKNOWN_LEADER_EPOCH -> ApiExceptionHandler.respond(HttpStatus.CONFLICT, 40907, message);
      case NOT_LEADER_OR_FOLLOWER ->
          ApiExceptionHandler.respond(HttpStatus.MISDIRECTED_REQUEST, 42101, message);
      case NOT_CONTROLLER ->
          ApiExceptionHandler.respond(
              HttpStatus.MISDIRECTED_REQUEST, InternalApi.NOT_CONTROLLER, message);
      case STALE_BROKER_EPOCH ->
          ApiExceptionHandler.respond(HttpStatus.CONFLICT, InternalApi.STALE_BROKER_EPOCH, message);
      case BROKER_ID_NOT_REGISTERED ->
          ApiExceptionHandler.respond(
              HttpStatus.CONFLICT, InternalApi.BROKER_NOT_REGISTERED, message);
      case LEADER_NOT_AVAILABLE ->
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50304, message);
      case BROKER_NOT_AVAILABLE ->
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50301, message);
      case NETWORK_EXCEPTION ->
          // A partition's leader did not answer a forwarded request: retriable.
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50306, message);
      case COORDINATOR_NOT_AVAILABLE ->
          ApiExceptionHandler.respond(HttpStatus.SERVICE_UNAVAILABLE, 50310, message);
      case REQUEST_TIMED_OUT ->
          ApiExceptionHandler.respond(HttpStatus.GATEWAY_TIMEOUT, 50401, message);
      case TOPIC_AUTHORIZATION_FAILED ->
          ApiExceptionHandler.respond(HttpStatus.FORBIDDEN, 40303, message);
      case GROUP_AUTHORIZATION_FAILED ->
          ApiExceptionHandler.respond(HttpStatus.FORBIDDEN, 40304, message);
      case CLUSTER_AUTHORIZATION_FAILED ->
          ApiExceptionHandler.respond(HttpStatus.FORBIDDEN, 40305, message);
      case UNKNOWN_SERVER_ERROR ->
          ApiExceptionHandler.respond(
              HttpStatus.INTERNAL_SERVER_ERROR, 50001, "Internal error: " + message);
      default -> ApiExceptionHandler.respond(HttpStatus.BAD_REQUEST, 40000, message);
    };
  }

  private static ResponseEntity<ErrorResponse> respond422(int code, String message) {
    return ApiExceptionHandler.respond(HttpStatus.UNPROCESSABLE_CONTENT, code, message);
  }
}
