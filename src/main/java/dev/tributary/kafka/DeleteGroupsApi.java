package dev.tributary.kafka;

import dev.tributary.group.GroupCoordinator;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;

/**
 * DeleteGroups (v0–3) on this broker's coordinator: an Empty group goes with its committed offsets
 * (a REST consumer's group too, once its instances are gone); one with members is NON_EMPTY_GROUP,
 * an unknown one GROUP_ID_NOT_FOUND. Deleting takes ADMIN on the group (Kafka's DELETE), else
 * GROUP_AUTHORIZATION_FAILED.
 */
final class DeleteGroupsApi implements ApiHandler {
  private final GroupBackend groups;

  DeleteGroupsApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DELETE_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 3;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    List<String> ids = ((DeleteGroupsRequest) request).data().groupsNames();
    GroupCoordinator coordinator = groups.local();
    List<CompletableFuture<Errors>> answers = new ArrayList<>();
    for (String groupId : ids) {
      if (!groups.allows(context, AclOperation.ADMIN, ResourceType.GROUP, groupId)) {
        answers.add(CompletableFuture.completedFuture(Errors.GROUP_AUTHORIZATION_FAILED));
      } else if (coordinator == null) {
        answers.add(CompletableFuture.completedFuture(Errors.COORDINATOR_NOT_AVAILABLE));
      } else {
        answers.add(coordinator.deleteGroup(groupId).thenApply(GroupBackend::error));
      }
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DeleteGroupsResponseData out = new DeleteGroupsResponseData().setThrottleTimeMs(0);
              for (int i = 0; i < ids.size(); i++) {
                out.results()
                    .add(
                        new DeletableGroupResult()
                            .setGroupId(ids.get(i))
                            .setErrorCode(answers.get(i).join().code()));
              }
              return new DeleteGroupsResponse(out);
            });
  }
}
