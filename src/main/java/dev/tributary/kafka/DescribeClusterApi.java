package dev.tributary.kafka;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.server.MetadataCache;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster (v0–2): the cluster id, the active controller (a broker here, so the client can
 * reach it) and every unfenced broker's Kafka listener and rack, plus the fenced ones with v2's
 * {@code include_fenced_brokers}. Only brokers answer (endpoint type 1): asking for controllers is
 * MISMATCHED_ENDPOINT_TYPE, an unknown type UNSUPPORTED_ENDPOINT_TYPE (INVALID_REQUEST at v0), as
 * on a Kafka broker. The cluster operations the principal may do are told when asked for.
 */
final class DescribeClusterApi implements ApiHandler {
  private static final byte BROKERS = 1;
  private static final byte CONTROLLERS = 2;

  private final MetadataCache metadata;
  private final AccessControl access;

  DescribeClusterApi(MetadataCache metadata, AccessControl access) {
    this.metadata = metadata;
    this.access = access;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DESCRIBE_CLUSTER;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    DescribeClusterRequestData data = ((DescribeClusterRequest) request).data();
    DescribeClusterResponseData response =
        new DescribeClusterResponseData().setEndpointType(data.endpointType());
    boolean v0 = context.apiVersion() == 0;
    if (data.endpointType() == CONTROLLERS) {
      response
          .setErrorCode((v0 ? Errors.INVALID_REQUEST : Errors.MISMATCHED_ENDPOINT_TYPE).code())
          .setErrorMessage(
              "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of"
                  + " type CONTROLLER");
    } else if (data.endpointType() != BROKERS) {
      response
          .setErrorCode((v0 ? Errors.INVALID_REQUEST : Errors.UNSUPPORTED_ENDPOINT_TYPE).code())
          .setErrorMessage("Unsupported endpoint type " + data.endpointType());
    } else {
      boolean includeFenced = context.apiVersion() >= 2 && data.includeFencedBrokers();
      response.setClusterId(metadata.clusterId()).setControllerId(metadata.activeControllerId());
      for (BrokerImage broker : metadata.metadata().brokers().values()) {
        if (!broker.fenced() || includeFenced) {
          MetadataApi.kafkaListener(broker)
              .ifPresent(
                  listener ->
                      response
                          .brokers()
                          .add(
                              new DescribeClusterResponseData.DescribeClusterBroker()
                                  .setBrokerId(broker.brokerId())
                                  .setHost(listener.host())
                                  .setPort(listener.port())
                                  .setRack(broker.rack().orElse(null))
                                  .setIsFenced(broker.fenced())));
        }
      }
      if (data.includeClusterAuthorizedOperations()) {
        response.setClusterAuthorizedOperations(bitField(authorizedOperations(context)));
      }
    }
    return CompletableFuture.completedFuture(new DescribeClusterResponse(response));
  }

  /**
   * Kafka's cluster operations this principal may do: READ on the cluster is Kafka's DESCRIBE and
   * DESCRIBE_CONFIGS; ADMIN adds CREATE (topics), ALTER (elections, ACLs) and ALTER_CONFIGS.
   * CLUSTER_ACTION (what brokers do among themselves) takes the cluster secret, never an ACL.
   */
  private Set<org.apache.kafka.common.acl.AclOperation> authorizedOperations(
      KafkaRequestContext context) {
    Set<org.apache.kafka.common.acl.AclOperation> operations =
        EnumSet.noneOf(org.apache.kafka.common.acl.AclOperation.class);
    String cluster = AccessControl.clusterName();
    if (access.allows(context.request(), AclOperation.READ, ResourceType.CLUSTER, cluster)) {
      operations.add(org.apache.kafka.common.acl.AclOperation.DESCRIBE);
      operations.add(org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS);
    }
    if (access.allows(context.request(), AclOperation.ADMIN, ResourceType.CLUSTER, cluster)) {
      operations.add(org.apache.kafka.common.acl.AclOperation.CREATE);
      operations.add(org.apache.kafka.common.acl.AclOperation.ALTER);
      operations.add(org.apache.kafka.common.acl.AclOperation.ALTER_CONFIGS);
    }
    return operations;
  }

  /** Kafka's authorized-operations bit field: bit {@code code} for each operation. */
  static int bitField(Set<org.apache.kafka.common.acl.AclOperation> operations) {
    int bits = 0;
    for (org.apache.kafka.common.acl.AclOperation operation : operations) {
      bits |= 1 << operation.code();
    }
    return bits;
  }
}
