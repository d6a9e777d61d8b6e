package dev.tributary.kafka;

import dev.tributary.group.CoordinatorApi.GroupListing;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;

/**
 * ListGroups (v0–5): the groups this broker coordinates, REST consumers' and Kafka clients' alike
 * (an admin client asks every broker, as with Kafka). v4+ filter by state (Kafka's names, any
 * case), v5+ by type: every group here is a {@code classic} one. As Kafka: READ on the cluster
 * lists every group, otherwise only those the principal may read.
 */
final class ListGroupsApi implements ApiHandler {
  static final String CLASSIC = "classic";

  private final GroupBackend groups;

  ListGroupsApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.LIST_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    ListGroupsRequestData data = ((ListGroupsRequest) request).data();
    short version = context.apiVersion();
    GroupCoordinator coordinator = groups.local();
    if (coordinator == null) {
      return CompletableFuture.completedFuture(
          new ListGroupsResponse(
              new ListGroupsResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())));
    }
    Set<String> states = version >= 4 ? lowerCase(data.statesFilter()) : Set.of();
    Set<String> types = version >= 5 ? lowerCase(data.typesFilter()) : Set.of();
    boolean everything =
        groups.allows(
            context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    return coordinator
        .listGroups()
        .thenApply(
            listing -> {
              ListGroupsResponseData out =
                  new ListGroupsResponseData()
                      .setThrottleTimeMs(0)
                      .setErrorCode(Errors.NONE.code());
              for (GroupListing g : listing) {
                if ((states.isEmpty()
                        || states.contains(g.state().kafkaName.toLowerCase(Locale.ROOT)))
                    && (types.isEmpty() || types.contains(CLASSIC))
                    && (everything
                        || groups.allows(
                            context, AclOperation.READ, ResourceType.GROUP, g.groupId()))) {
                  ListGroupsResponseData.ListedGroup listed =
                      new ListGroupsResponseData.ListedGroup()
                          .setGroupId(g.groupId())
                          .setProtocolType(g.protocolType());
                  if (version >= 4) {
                    listed.setGroupState(g.state().kafkaName);
                  }
                  if (version >= 5) {
                    listed.setGroupType(CLASSIC);
                  }
                  out.groups().add(listed);
                }
              }
              return new ListGroupsResponse(out);
            });
  }

  private static Set<String> lowerCase(List<String> values) {
    return values.stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
  }
}
