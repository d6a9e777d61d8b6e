package dev.tributary.metadata;

import dev.tributary.common.errors.Errors;

/**
 * What a leader election did for one partition, with Kafka's ElectLeaders codes: {@link
 * Errors#NONE} (elected), {@link Errors#ELECTION_NOT_NEEDED} (the preferred replica already leads),
 * {@link Errors#PREFERRED_LEADER_NOT_AVAILABLE} (it is not in sync or not alive), {@link
 * Errors#UNKNOWN_TOPIC_OR_PARTITION}.
 *
 * @param message why, or null when elected
 */
public record ElectionOutcome(Errors error, String message) {
  public static final ElectionOutcome ELECTED = new ElectionOutcome(Errors.NONE, null);
}
