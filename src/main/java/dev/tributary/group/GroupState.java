package dev.tributary.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a group in Kafka's classic protocol, each with the states it may be entered from.
 * {@link ConsumerGroup#transitionTo} is the only place a group's state changes and it checks this
 * table.
 *
 * <pre>
 *   Empty ──join──▶ PreparingRebalance ──all joined──▶ CompletingRebalance ──leader synced──▶ Stable
 *     ▲                 ▲      │                              │                              │
 *     └── last member ──┘      └──── member joins, leaves, times out, or a sync fails ◀──────┘
 *          left or expired                                                   (back to PreparingRebalance)
 *   any state ──partition unloaded or group deleted──▶ Dead
 * </pre>
 */
public enum GroupState {
  /** No members; committed offsets may remain. A join starts a rebalance. */
  EMPTY("Empty"),
  /** Members are (re)joining; the join completes when all known members have, or at the timeout. */
  PREPARING_REBALANCE("PreparingRebalance"),
  /** A new generation was handed out; waiting for the leader's assignment in its sync. */
  COMPLETING_REBALANCE("CompletingRebalance"),
  /** Every member has its assignment; heartbeats keep members in. */
  STABLE("Stable"),
  /** Removed from this coordinator (its partition moved, or the group was deleted). Terminal. */
  DEAD("Dead");

  /** Kafka's spelling, as admin tools and the REST API show it. */
  public final String kafkaName;

  GroupState(String kafkaName) {
    this.kafkaName = kafkaName;
  }

  /** The states this one may be entered from. */
  Set<GroupState> validPrevious() {
    return switch (this) {
      case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
      case PREPARING_REBALANCE -> EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
      case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
      case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
      case DEAD -> EnumSet.allOf(GroupState.class);
    };
  }
}
