package dev.tributary.server;

import dev.tributary.metadata.MetadataImage;
import java.util.Optional;

/**
 * The cluster as this broker knows it, read-only (Kafka's MetadataCache): the metadata image it
 * routes by, the cluster id, the active controller. What the REST and dashboard adapters read to
 * describe the cluster; everything they change goes through a service.
 */
public interface MetadataCache {
  /** This broker's id. */
  int brokerId();

  /**
   * This broker's configuration as it runs: the listener's real port once it has bound (a
   * configured port 0 becomes the one the system chose).
   */
  BrokerConfig config();

  /**
   * The latest metadata this broker has from the quorum (what it describes to clients). Its replica
   * manager may apply an image a moment later; services that route to local partitions use the
   * replica manager's own image ({@link dev.tributary.replication.ReplicaManager#metadataImage()}).
   *
   * @throws dev.tributary.common.errors.BrokerNotAvailableException while the broker is not serving
   */
  MetadataImage metadata();

  /**
   * The cluster's id.
   *
   * @throws dev.tributary.common.errors.BrokerNotAvailableException while the broker is not serving
   */
  String clusterId();

  /** The broker id of the active controller, or -1 while none is known. */
  int activeControllerId();

  /** The controller epoch (the Raft term of the current leader). */
  long controllerEpoch();

  /** Where broker {@code brokerId} serves HTTP, from the metadata image. */
  Optional<ControllerChannel.Endpoint> brokerEndpoint(int brokerId);

  /** True while the broker serves (started, not shutting down). */
  boolean isReady();
}
