package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The body of every error: {@code {"error_code": 40401, "message": "..."}}; error_code = HTTP
 * status × 100 + n.
 */
record ErrorResponse(
    @JsonProperty("error_code") int errorCode, @JsonProperty("message") String message) {}
