package dev.tributary.consumer;

import dev.tributary.common.errors.ApiException;

/**
 * The next record of an assigned partition cannot be rendered in the instance's embedded format
 * (bytes that are not JSON, for a {@code json} instance), and nothing before it was left to
 * deliver. The position stays on it, so no record is skipped without the client knowing.
 */
public final class UndeliverableRecordException extends ApiException {
  public UndeliverableRecordException(String message) {
    super(message);
  }
}
