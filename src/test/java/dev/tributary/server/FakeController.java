package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.PreferredLeaderElection;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.metadata.TopicControl;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclBinding;
import dev.tributary.security.ApiKey;
import dev.tributary.security.SecurityChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The active controller as a broker's {@link ControllerChannel} sees it: admin requests are
 * validated and turned into records by the real {@link TopicControl} against everything committed,
 * committed to the {@link ReplicaHarness} (not yet applied on the broker: {@link
 * ReplicaHarness#catchUp} does that) and answered with their metadata offset. Every call is
 * recorded with the endpoint it was sent to. Broker lifecycle calls are not the services' business
 * and fail.
 */
final class FakeController implements ControllerChannel {
  /** One admin call: its name, the endpoint it went to, and its arguments. */
  record Call(String name, Endpoint endpoint, List<Object> arguments) {}

  private final ReplicaHarness harness;
  private final TopicControl control = new TopicControl(new Random(5));
  private final List<Call> calls = new ArrayList<>();

  FakeController(ReplicaHarness harness) {
    this.harness = harness;
  }

  List<Call> calls() {
    return calls;
  }

  /**
   * A call's arguments as tests read them: {@code base}, then the manual assignments if any, then
   * "validate only" if so.
   */
  private static List<Object> arguments(
      List<Object> base, List<List<Integer>> assignments, boolean validateOnly) {
    List<Object> arguments = new ArrayList<>(base);
    if (!assignments.isEmpty()) {
      arguments.add(assignments);
    }
    if (validateOnly) {
      arguments.add("validate only");
    }
    return arguments;
  }

  /** Records the call, computes its records and commits them (unless only validating). */
  private AdminResult commit(
      String name,
      Endpoint endpoint,
      List<Object> arguments,
      boolean validateOnly,
      Supplier<List<MetadataRecord>> run) {
    calls.add(new Call(name, endpoint, arguments));
    List<MetadataRecord> records = run.get();
    if (!validateOnly && !records.isEmpty()) {
      harness.commit(records);
    }
    return new AdminResult(harness.controllerImage().lastOffset());
  }

  @Override
  public AdminResult createTopic(Endpoint controller, NewTopic topic, boolean validateOnly) {
    return commit(
        "createTopic",
        controller,
        arguments(
            List.of(topic.name(), topic.partitions(), topic.replicationFactor(), topic.configs()),
            topic.assignments(),
            validateOnly),
        validateOnly,
        () -> control.createTopic(harness.controllerImage(), topic));
  }

  @Override
  public AdminResult createPartitions(
      Endpoint controller, NewPartitions request, boolean validateOnly) {
    return commit(
        "createPartitions",
        controller,
        arguments(
            List.of(request.topic(), request.totalCount()), request.assignments(), validateOnly),
        validateOnly,
        () -> control.createPartitions(harness.controllerImage(), request));
  }

  @Override
  public AdminResult deleteTopic(Endpoint controller, String name) {
    return commit(
        "deleteTopic",
        controller,
        List.of(name),
        false,
        () -> control.deleteTopic(harness.controllerImage(), name));
  }

  @Override
  public AdminResult alterBrokerConfigs(
      Endpoint controller, int brokerId, List<ConfigChange> changes, boolean validateOnly) {
    return commit(
        "alterBrokerConfigs",
        controller,
        List.of(brokerId, changes),
        validateOnly,
        () ->
            dev.tributary.metadata.BrokerConfigControl.alter(
                harness.controllerImage(), brokerId, changes));
  }

  @Override
  public AdminResult unregisterBroker(Endpoint controller, int brokerId) {
    return commit(
        "unregisterBroker",
        controller,
        List.of(brokerId),
        false,
        () ->
            dev.tributary.metadata.BrokerUnregistration.records(
                harness.controllerImage(), brokerId));
  }

  @Override
  public AdminResult alterConfigs(
      Endpoint controller, String name, List<ConfigChange> changes, boolean validateOnly) {
    return commit(
        "alterConfigs",
        controller,
        arguments(List.of(name, changes), List.of(), validateOnly),
        validateOnly,
        () -> control.alterConfigs(harness.controllerImage(), name, changes));
  }

  @Override
  public ElectionResult electPreferredLeaders(
      Endpoint controller, List<TopicPartition> partitions) {
    List<Object> arguments = new ArrayList<>();
    arguments.add(partitions);
    PreferredLeaderElection.Result[] election = new PreferredLeaderElection.Result[1];
    AdminResult committed =
        commit(
            "electPreferredLeaders",
            controller,
            arguments,
            false,
            () -> {
              election[0] = PreferredLeaderElection.elect(harness.controllerImage(), partitions);
              return election[0].records();
            });
    return new ElectionResult(committed.metadataOffset(), election[0].outcomes());
  }

  @Override
  public ReassignmentResult alterPartitionReassignments(
      Endpoint controller,
      java.util.Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    dev.tributary.metadata.ReassignmentControl.Result[] result =
        new dev.tributary.metadata.ReassignmentControl.Result[1];
    AdminResult committed =
        commit(
            "alterPartitionReassignments",
            controller,
            List.of(targets),
            false,
            () -> {
              result[0] =
                  dev.tributary.metadata.ReassignmentControl.alter(
                      harness.controllerImage(), targets);
              return result[0].records();
            });
    return new ReassignmentResult(committed.metadataOffset(), result[0].outcomes());
  }

  @Override
  public AdminResult alterSecurity(Endpoint controller, SecurityChange change) {
    return commit(
        "alterSecurity",
        controller,
        List.of(change),
        false,
        () -> {
          List<MetadataRecord> records = new ArrayList<>();
          for (ApiKey key : change.createApiKeys()) {
            records.add(new MetadataRecord.ApiKeyCreated(key));
          }
          for (String keyId : change.deleteApiKeys()) {
            records.add(new MetadataRecord.ApiKeyDeleted(keyId));
          }
          for (AclBinding acl : change.createAcls()) {
            records.add(new MetadataRecord.AclCreated(acl));
          }
          for (AclBinding acl : change.deleteAcls()) {
            records.add(new MetadataRecord.AclDeleted(acl));
          }
          return records;
        });
  }

  @Override
  public ProducerIdsBlock allocateProducerIds(Endpoint controller, int brokerId, long brokerEpoch) {
    throw new UnsupportedOperationException("producer ids are not a service test's call");
  }

  @Override
  public RegistrationResult register(Endpoint controller, BrokerRegistration registration) {
    throw new UnsupportedOperationException("registration is not a service's call");
  }

  @Override
  public HeartbeatResult heartbeat(Endpoint controller, BrokerHeartbeat heartbeat) {
    throw new UnsupportedOperationException("heartbeats are not a service's call");
  }

  @Override
  public AdminResult alterPartition(Endpoint controller, AlterPartition request) {
    throw new UnsupportedOperationException("ISR changes are not a service's call");
  }

  @Override
  public AdminResult fenceBroker(Endpoint controller, int brokerId, long brokerEpoch) {
    throw new UnsupportedOperationException("fencing is not a service's call");
  }

  @Override
  public void reportUnreachable(Endpoint controller, int reporterId, int brokerId) {
    throw new UnsupportedOperationException("reports are not a service's call");
  }

  @Override
  public void reportTruncation(
      Endpoint controller, dev.tributary.replication.Truncation truncation) {
    throw new UnsupportedOperationException("reports are not a service's call");
  }

  @Override
  public void reportFault(Endpoint controller, FaultReport fault) {
    throw new UnsupportedOperationException("reports are not a service's call");
  }
}
