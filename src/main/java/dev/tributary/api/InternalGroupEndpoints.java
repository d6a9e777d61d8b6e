package dev.tributary.api;

import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.CoordinatorApi.DescribeResult;
import dev.tributary.group.CoordinatorApi.GroupListing;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.server.GroupServices;
import dev.tributary.transport.http.GroupWire;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * This broker's group coordinator and leaders, for other brokers (the cluster secret is checked by
 * {@link InternalAuthFilter}). Answers only from what this broker holds: a group whose partition it
 * does not lead is NOT_COORDINATOR, a partition it does not lead is NOT_LEADER_OR_FOLLOWER; never
 * routed further. A join or a read that waits holds no thread.
 */
@RestController
class InternalGroupEndpoints {
  private final GroupServices groups;

  InternalGroupEndpoints(GroupServices groups) {
    this.groups = groups;
  }

  private CoordinatorApi coordinator() {
    GroupCoordinator local = groups.localCoordinator();
    if (local == null) {
      throw new dev.tributary.common.errors.BrokerNotAvailableException(
          "The group coordinator is not started yet");
    }
    return local;
  }

  @PostMapping(GroupWire.JOIN)
  CompletableFuture<JoinResult> join(@RequestBody JoinRequest request) {
    return coordinator().joinGroup(request);
  }

  @PostMapping(GroupWire.SYNC)
  CompletableFuture<SyncResult> sync(@RequestBody SyncRequest request) {
    return coordinator().syncGroup(request);
  }

  @PostMapping(GroupWire.HEARTBEAT)
  CompletableFuture<GroupWire.ErrorAnswer> heartbeat(@RequestBody GroupWire.MemberCall call) {
    return coordinator()
        .heartbeat(call.groupId(), call.memberId(), call.generationId())
        .thenApply(GroupWire.ErrorAnswer::new);
  }

  @PostMapping(GroupWire.LEAVE)
  CompletableFuture<GroupWire.ErrorAnswer> leave(@RequestBody GroupWire.MemberCall call) {
    return coordinator()
        .leaveGroup(call.groupId(), call.memberId(), call.reason())
        .thenApply(GroupWire.ErrorAnswer::new);
  }

  @PostMapping(GroupWire.COMMIT)
  CompletableFuture<GroupWire.ErrorAnswer> commit(@RequestBody GroupWire.CommitCall call) {
    return coordinator()
        .commitOffsets(
            call.groupId(),
            call.memberId(),
            call.generationId(),
            GroupWire.fromWire(call.offsets()))
        .thenApply(GroupWire.ErrorAnswer::new);
  }

  @PostMapping(GroupWire.FETCH_OFFSETS)
  CompletableFuture<GroupWire.FetchOffsetsAnswer> fetchOffsets(
      @RequestBody GroupWire.FetchOffsetsCall call) {
    return coordinator()
        .fetchOffsets(call.groupId(), GroupWire.partitionsFromWire(call.partitions()))
        .thenApply(r -> new GroupWire.FetchOffsetsAnswer(r.error(), GroupWire.toWire(r.offsets())));
  }

  @PostMapping(GroupWire.DESCRIBE)
  CompletableFuture<DescribeResult> describe(@RequestBody GroupWire.GroupCall call) {
    return coordinator().describeGroup(call.groupId());
  }

  @PostMapping(GroupWire.LIST)
  CompletableFuture<List<GroupListing>> list() {
    GroupCoordinator local = groups.localCoordinator();
    return local == null ? CompletableFuture.completedFuture(List.of()) : local.listGroups();
  }

  @GetMapping(GroupWire.CONSUMER_FETCH)
  CompletableFuture<ResponseEntity<byte[]>> fetch(
      @RequestParam String topic,
      @RequestParam int partition,
      @RequestParam long offset,
      @RequestParam(name = "max_bytes") int maxBytes,
      @RequestParam(name = "max_wait_ms") long maxWaitMs) {
    if (partition < 0
        || maxBytes < 1
        || maxWaitMs < 0
        || maxWaitMs > RecordsController.MAX_TIMEOUT_MS) {
      throw RestException.badParameter("partition, max_bytes and max_wait_ms must be in range");
    }
    PartitionReader reader = groups.localReader();
    return reader
        .fetch(
            new TopicPartition(topic, partition),
            offset,
            Math.min(maxBytes, RecordsController.MAX_FETCH_BYTES),
            maxWaitMs)
        .thenApply(
            fetched -> {
              ByteBuffer records = fetched.records();
              byte[] body = new byte[records.remaining()];
              records.duplicate().get(body);
              return ResponseEntity.ok()
                  .contentType(MediaType.APPLICATION_OCTET_STREAM)
                  .header(GroupWire.HIGH_WATERMARK_HEADER, Long.toString(fetched.highWatermark()))
                  .header(
                      GroupWire.LOG_START_OFFSET_HEADER, Long.toString(fetched.logStartOffset()))
                  .body(body);
            });
  }

  @GetMapping(GroupWire.CONSUMER_OFFSETS)
  CompletableFuture<GroupWire.PartitionOffsets> offsets(
      @RequestParam String topic, @RequestParam int partition) {
    if (partition < 0) {
      throw RestException.badParameter("partition must be >= 0");
    }
    return groups
        .localReader()
        .offsets(new TopicPartition(topic, partition))
        .thenApply(o -> new GroupWire.PartitionOffsets(o.logStartOffset(), o.highWatermark()));
  }
}
