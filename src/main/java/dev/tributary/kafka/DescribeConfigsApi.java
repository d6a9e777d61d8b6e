package dev.tributary.kafka;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.server.ConfigDescriptions;
import dev.tributary.server.ConfigDescriptions.ConfigEntry;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/**
 * DescribeConfigs (v1–4) through {@link ConfigDescriptions}: a topic's configs (READ on the topic,
 * else TOPIC_AUTHORIZATION_FAILED) or this broker's (READ on the cluster, else
 * CLUSTER_AUTHORIZATION_FAILED; another broker's id is INVALID_REQUEST, as each Kafka broker
 * describes its own and the client asks each one), all of them or the keys asked for, with synonyms
 * and documentation when asked for. Other resource types (broker loggers, groups, client metrics)
 * have no configs here: INVALID_REQUEST.
 */
final class DescribeConfigsApi implements ApiHandler {
  private final ConfigDescriptions configs;

  DescribeConfigsApi(ConfigDescriptions configs) {
    this.configs = configs;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DESCRIBE_CONFIGS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    DescribeConfigsRequestData data = ((DescribeConfigsRequest) request).data();
    DescribeConfigsResponseData response = new DescribeConfigsResponseData();
    for (DescribeConfigsResource resource : data.resources()) {
      DescribeConfigsResult result =
          new DescribeConfigsResult()
              .setResourceType(resource.resourceType())
              .setResourceName(resource.resourceName());
      try {
        Set<String> keys =
            resource.configurationKeys() == null
                ? null
                : new HashSet<>(resource.configurationKeys());
        for (ConfigEntry entry : describe(context, resource)) {
          if (keys == null || keys.contains(entry.name())) {
            result
                .configs()
                .add(
                    ConfigEntries.described(
                        entry, data.includeSynonyms(), data.includeDocumentation()));
          }
        }
      } catch (RuntimeException e) {
        AdminCalls.Outcome outcome = AdminCalls.Outcome.of(e);
        result.configs().clear();
        result.setErrorCode(outcome.error().code()).setErrorMessage(outcome.message());
      }
      response.results().add(result);
    }
    return CompletableFuture.completedFuture(new DescribeConfigsResponse(response));
  }

  private List<ConfigEntry> describe(
      KafkaRequestContext context, DescribeConfigsResource resource) {
    ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
    return switch (type) {
      case TOPIC -> configs.topicConfigs(context.request(), resource.resourceName());
      case BROKER -> configs.brokerConfigs(context.request(), resource.resourceName());
      default -> throw new InvalidRequestException("Unsupported resource type: " + type);
    };
  }
}
