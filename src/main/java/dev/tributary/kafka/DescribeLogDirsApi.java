package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.server.LogDirsService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;

/**
 * DescribeLogDirs (v1–5, KIP-113) through {@link LogDirsService}: this broker's one log directory,
 * with the replicas it hosts of the partitions named (all of them for null topics), each with its
 * size on disk and offset lag; never a future replica (no moves between directories). A partition
 * not hosted here is left out, as in Kafka. From v4 the file store's total and usable bytes; v5's
 * {@code is_cordoned} is always false. An offline directory is answered with KAFKA_STORAGE_ERROR
 * and no replicas. Needs READ on the cluster (Kafka's DESCRIBE): CLUSTER_AUTHORIZATION_FAILED for
 * the request (from v3; before, no result is how the client knows).
 */
final class DescribeLogDirsApi implements ApiHandler {
  private final LogDirsService logDirs;

  DescribeLogDirsApi(LogDirsService logDirs) {
    this.logDirs = logDirs;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DESCRIBE_LOG_DIRS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    DescribeLogDirsRequest describe = (DescribeLogDirsRequest) request;
    Set<TopicPartition> partitions = null;
    if (!describe.isAllTopicPartitions()) {
      partitions = new HashSet<>();
      for (DescribeLogDirsRequestData.DescribableLogDirTopic topic : describe.data().topics()) {
        for (int partition : topic.partitions()) {
          if (partition >= 0) { // a negative index names no partition: none is hosted here
            partitions.add(new TopicPartition(topic.topic(), partition));
          }
        }
      }
    }
    LogDirsService.LogDir dir = logDirs.describe(context.request(), partitions);
    Map<String, DescribeLogDirsTopic> topics = new LinkedHashMap<>();
    for (LogDirsService.ReplicaLog replica : dir.replicas()) {
      TopicPartition tp = replica.topicPartition();
      topics
          .computeIfAbsent(tp.topic(), name -> new DescribeLogDirsTopic().setName(name))
          .partitions()
          .add(
              new DescribeLogDirsPartition()
                  .setPartitionIndex(tp.partition())
                  .setPartitionSize(replica.sizeBytes())
                  .setOffsetLag(replica.offsetLag())
                  .setIsFutureKey(false));
    }
    DescribeLogDirsResult result =
        new DescribeLogDirsResult()
            .setLogDir(dir.path())
            .setErrorCode(KafkaErrors.of(dir.error()).code())
            .setTopics(new ArrayList<>(topics.values()));
    if (dir.error() == Errors.NONE) {
      result.setTotalBytes(dir.totalBytes()).setUsableBytes(dir.usableBytes());
    }
    return CompletableFuture.completedFuture(
        new DescribeLogDirsResponse(
            new DescribeLogDirsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setResults(new ArrayList<>(List.of(result)))));
  }
}
