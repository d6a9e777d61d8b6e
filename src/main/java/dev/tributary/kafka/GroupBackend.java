package dev.tributary.kafka;

import dev.tributary.common.Time;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.server.GroupServices;
import dev.tributary.server.MetadataCache;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the Kafka group APIs reach of the broker: the same group coordinator the REST consumer
 * instances use, so that REST and Kafka members share groups and committed offsets.
 *
 * <p>A Kafka client finds its group's coordinator itself (FindCoordinator) and sends that broker
 * every group request; so, as in Kafka, a broker answers only from its own coordinator ({@link
 * #coordinator}), which says NOT_COORDINATOR for a group it does not hold, and the client looks
 * again. (REST members go through the router, which forwards instead.)
 *
 * @param coordinator this broker's own coordinator; null until the broker has started it
 * @param findCoordinator which broker coordinates a group, or -1 while none does (creating {@code
 *     __consumer_offsets} on first use)
 * @param metadata the broker's current metadata image (topics, their ids, the brokers' listeners)
 * @param time the coordinator's clock, which stamps committed offsets as Kafka's coordinator does
 */
record GroupBackend(
    Supplier<GroupCoordinator> coordinator,
    ToIntFunction<String> findCoordinator,
    Supplier<MetadataImage> metadata,
    AccessControl access,
    Time time) {

  static GroupBackend of(GroupServices groups, MetadataCache metadata, AccessControl access) {
    return new GroupBackend(
        groups::localCoordinator,
        groups::findCoordinator,
        metadata::metadata,
        access,
        groups.time());
  }

  /** The group APIs, one handler each. */
  List<ApiHandler> apis() {
    return List.of(
        new FindCoordinatorApi(this),
        new JoinGroupApi(this),
        new SyncGroupApi(this),
        new HeartbeatApi(this),
        new LeaveGroupApi(this),
        new OffsetCommitApi(this),
        new OffsetFetchApi(this),
        new ListGroupsApi(this),
        new DescribeGroupsApi(this),
        new DeleteGroupsApi(this));
  }

  /** This broker's coordinator, or null while it has none (answer COORDINATOR_NOT_AVAILABLE). */
  GroupCoordinator local() {
    return coordinator.get();
  }

  /**
   * Whether the request's principal may {@code operation} the group or topic {@code name}: the
   * rules REST applies (Kafka's READ and DESCRIBE are our READ, its DELETE our ADMIN).
   */
  boolean allows(
      KafkaRequestContext context, AclOperation operation, ResourceType type, String name) {
    return access.allows(context.request(), operation, type, name);
  }

  /** The coordinator's answer as Kafka's error: the same codes. */
  static Errors error(GroupError error) {
    return Errors.forCode((short) error.code);
  }
}
