package dev.tributary.metadata;

import dev.tributary.common.Uuid;

/**
 * A registered broker: id, the incarnation of its current process, its HTTP endpoint, its broker
 * epoch (the metadata offset of the {@link MetadataRecord.RegisterBroker} that made this
 * registration) and whether it is fenced. A fenced broker may lead no partition; every registration
 * starts fenced.
 */
public record BrokerImage(
    int brokerId, Uuid incarnationId, String host, int port, long brokerEpoch, boolean fenced) {

  BrokerImage withFenced(boolean nextFenced) {
    return new BrokerImage(brokerId, incarnationId, host, port, brokerEpoch, nextFenced);
  }
}
