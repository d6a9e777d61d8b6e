package dev.tributary.server;

import dev.tributary.consumer.PartitionReader;
import dev.tributary.group.CoordinatorApi;

/**
 * How one broker reaches the group coordinator and the partition leaders on another: the
 * coordinator's calls and consumer reads, over the internal HTTP API. Implementations must answer
 * only from the remote broker's own coordinator and leaders (never route further), so a stale view
 * on two brokers cannot make a loop.
 */
public interface GroupTransport {
  /** The coordinator of broker {@code endpoint}, as it answers for the groups it holds. */
  CoordinatorApi coordinatorAt(ControllerChannel.Endpoint endpoint);

  /** Reads from the partitions broker {@code endpoint} leads. */
  PartitionReader readerAt(ControllerChannel.Endpoint endpoint);

  /** A broker with no peers. */
  GroupTransport NONE =
      new GroupTransport() {
        @Override
        public CoordinatorApi coordinatorAt(ControllerChannel.Endpoint endpoint) {
          throw new dev.tributary.common.errors.BrokerNotAvailableException(
              "Broker " + endpoint.brokerId() + " cannot be reached from a single-broker cluster");
        }

        @Override
        public PartitionReader readerAt(ControllerChannel.Endpoint endpoint) {
          throw new dev.tributary.common.errors.BrokerNotAvailableException(
              "Broker " + endpoint.brokerId() + " cannot be reached from a single-broker cluster");
        }
      };
}
