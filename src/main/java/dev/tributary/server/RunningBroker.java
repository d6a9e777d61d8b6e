package dev.tributary.server;

import dev.tributary.replication.ReplicaManager;

/**
 * What the broker's services need of the running broker: its replica manager, its way to the
 * controller, its producer ids, and what {@link MetadataCache} tells. Every call fails with
 * BROKER_NOT_AVAILABLE ({@link dev.tributary.common.errors.BrokerNotAvailableException}) while the
 * broker is starting (joining the cluster, recovering its logs) or once it is shutting down, so no
 * service serves from a broker that is not ready. {@link BrokerServer} is the implementation; tests
 * give a replica manager of their own. Protocol adapters never see this: they call the services.
 */
public interface RunningBroker extends MetadataCache {
  ReplicaManager replicaManager();

  /** The way to the active controller, wherever it is. */
  ControllerClient controller();

  /** Where this broker's producer ids come from (InitProducerId). */
  ProducerIdManager producerIdManager();
}
