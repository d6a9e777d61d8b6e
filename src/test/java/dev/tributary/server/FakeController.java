package dev.tributary.server;

import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.metadata.TopicControl;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclBinding;
import dev.tributary.security.ApiKey;
import dev.tributary.security.SecurityChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  private AdminResult commit(
      String name, Endpoint endpoint, List<Object> arguments, Supplier<List<MetadataRecord>> run) {
    calls.add(new Call(name, endpoint, arguments));
    harness.commit(run.get());
    return new AdminResult(harness.controllerImage().lastOffset());
  }

  @Override
  public AdminResult createTopic(
      Endpoint controller,
      String name,
      int partitions,
      int replicationFactor,
      Map<String, String> configs) {
    return commit(
        "createTopic",
        controller,
        List.of(name, partitions, replicationFactor, Map.copyOf(configs)),
        () ->
            control.createTopic(
                harness.controllerImage(), name, partitions, replicationFactor, configs));
  }

  @Override
  public AdminResult createPartitions(Endpoint controller, String name, int newTotal) {
    return commit(
        "createPartitions",
        controller,
        List.of(name, newTotal),
        () -> control.createPartitions(harness.controllerImage(), name, newTotal));
  }

  @Override
  public AdminResult deleteTopic(Endpoint controller, String name) {
    return commit(
        "deleteTopic",
        controller,
        List.of(name),
        () -> control.deleteTopic(harness.controllerImage(), name));
  }

  @Override
  public AdminResult alterConfig(Endpoint controller, String name, String key, String value) {
    List<Object> arguments = new ArrayList<>(List.of(name, key));
    arguments.add(value);
    return commit(
        "alterConfig",
        controller,
        arguments,
        () -> control.alterConfig(harness.controllerImage(), name, key, value));
  }

  @Override
  public AdminResult alterSecurity(Endpoint controller, SecurityChange change) {
    return commit(
        "alterSecurity",
        controller,
        List.of(change),
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
}
