package dev.tributary.metadata;

import dev.tributary.common.Uuid;

/** A registered broker: id, the incarnation of its current process, and its HTTP endpoint. */
public record BrokerImage(int brokerId, Uuid incarnationId, String host, int port) {}
