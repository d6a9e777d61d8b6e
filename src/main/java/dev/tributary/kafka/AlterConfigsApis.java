package dev.tributary.kafka;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.server.AdminService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * AlterConfigs and IncrementalAlterConfigs through {@link AdminService}, each resource on its own
 * and all of its changes or none, answered once this broker has applied them (or, with {@code
 * validate_only}, once the controller has checked them). A topic needs ADMIN on it
 * (TOPIC_AUTHORIZATION_FAILED); an unknown one is UNKNOWN_TOPIC_OR_PARTITION, an unknown config or
 * a bad value INVALID_CONFIG. A broker resource needs ADMIN on the cluster
 * (CLUSTER_AUTHORIZATION_FAILED); every broker config is read-only, so a DELETE (there is no
 * dynamic override to remove) succeeds and changes nothing, and any other change is
 * INVALID_REQUEST. Other resource types, a resource named twice, a config named twice:
 * INVALID_REQUEST.
 */
final class AlterConfigsApis {
  private AlterConfigsApis() {}

  /** The changes to one resource, as {@link AdminService} takes them. */
  private interface Changes {
    /** For a topic. */
    CompletableFuture<Void> applyToTopic(String topic, boolean validateOnly);

    /** The changes, for a broker. */
    List<ConfigChange> toBroker();
  }

  /**
   * Applies {@code changes} to resource {@code type} {@code name}, unless it is named more than
   * once in the request ({@code occurrences}).
   */
  private static CompletableFuture<AdminCalls.Outcome> alter(
      AdminService admin,
      KafkaRequestContext context,
      byte type,
      String name,
      int occurrences,
      boolean validateOnly,
      Supplier<Changes> changes) {
    CompletableFuture<Void> done =
        AdminCalls.attempt(
            () -> {
              if (occurrences > 1) {
                throw new InvalidRequestException("Each resource must appear at most once.");
              }
              ConfigResource.Type resourceType = ConfigResource.Type.forId(type);
              return switch (resourceType) {
                case TOPIC -> changes.get().applyToTopic(name, validateOnly);
                case BROKER ->
                    admin.alterBrokerConfigs(
                        context.request(), name, changes.get().toBroker(), validateOnly);
                default ->
                    throw new InvalidRequestException("Unsupported resource type: " + resourceType);
              };
            });
    return done.handle((ignored, failure) -> AdminCalls.Outcome.of(failure));
  }

  private static String resourceKey(byte type, String name) {
    return type + ":" + name;
  }

  /**
   * AlterConfigs (v0–2): each resource's configs become exactly those given; the rest go back to
   * their defaults (see {@link AdminService#replaceConfigs}).
   */
  static final class Legacy implements ApiHandler {
    private final AdminService admin;

    Legacy(AdminService admin) {
      this.admin = admin;
    }

    @Override
    public ApiKeys apiKey() {
      return ApiKeys.ALTER_CONFIGS;
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
      AlterConfigsRequestData data = ((AlterConfigsRequest) request).data();
      Map<String, Integer> named = new HashMap<>();
      data.resources()
          .forEach(
              r -> named.merge(resourceKey(r.resourceType(), r.resourceName()), 1, Integer::sum));
      List<CompletableFuture<AlterConfigsResponseData.AlterConfigsResourceResponse>> results =
          new ArrayList<>();
      for (AlterConfigsRequestData.AlterConfigsResource resource : data.resources()) {
        results.add(
            alter(
                    admin,
                    context,
                    resource.resourceType(),
                    resource.resourceName(),
                    named.get(resourceKey(resource.resourceType(), resource.resourceName())),
                    data.validateOnly(),
                    () -> changes(context, resource))
                .thenApply(
                    outcome ->
                        new AlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(outcome.error().code())
                            .setErrorMessage(outcome.message())));
      }
      return AdminCalls.all(results)
          .thenApply(
              answered ->
                  new AlterConfigsResponse(new AlterConfigsResponseData().setResponses(answered)));
    }

    private Changes changes(
        KafkaRequestContext context, AlterConfigsRequestData.AlterConfigsResource resource) {
      Map<String, String> configs = new LinkedHashMap<>();
      for (AlterConfigsRequestData.AlterableConfig config : resource.configs()) {
        if (configs.containsKey(config.name())) {
          throw new InvalidRequestException("Error due to duplicate config keys");
        }
        configs.put(config.name(), config.value());
      }
      return new Changes() {
        @Override
        public CompletableFuture<Void> applyToTopic(String topic, boolean validateOnly) {
          return admin.replaceConfigs(context.request(), topic, configs, validateOnly);
        }

        /**
         * The configs as SETs; a null value, which Kafka leaves out of the broker's new set, as a
         * DELETE.
         */
        @Override
        public List<ConfigChange> toBroker() {
          List<ConfigChange> changes = new ArrayList<>();
          configs.forEach(
              (key, value) ->
                  changes.add(
                      value == null ? ConfigChange.delete(key) : ConfigChange.set(key, value)));
          // The broker's dynamic configs become exactly those given: the others are removed (a
          // removal of one that is not set changes nothing).
          dev.tributary.metadata.BrokerConfigControl.DYNAMIC.stream()
              .filter(name -> !configs.containsKey(name))
              .sorted()
              .forEach(name -> changes.add(ConfigChange.delete(name)));
          return changes;
        }
      };
    }
  }

  /**
   * IncrementalAlterConfigs (v0–1): SET, DELETE, APPEND and SUBTRACT, applied in order (see {@link
   * dev.tributary.metadata.TopicControl#alterConfigs}); an unknown operation is INVALID_REQUEST.
   */
  static final class Incremental implements ApiHandler {
    private final AdminService admin;

    Incremental(AdminService admin) {
      this.admin = admin;
    }

    @Override
    public ApiKeys apiKey() {
      return ApiKeys.INCREMENTAL_ALTER_CONFIGS;
    }

    @Override
    public short minVersion() {
      return 0;
    }

    @Override
    public short maxVersion() {
      return 1;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(
        KafkaRequestContext context, AbstractRequest request) {
      IncrementalAlterConfigsRequestData data = ((IncrementalAlterConfigsRequest) request).data();
      Map<String, Integer> named = new HashMap<>();
      data.resources()
          .forEach(
              r -> named.merge(resourceKey(r.resourceType(), r.resourceName()), 1, Integer::sum));
      List<CompletableFuture<IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse>>
          results = new ArrayList<>();
      for (IncrementalAlterConfigsRequestData.AlterConfigsResource resource : data.resources()) {
        results.add(
            alter(
                    admin,
                    context,
                    resource.resourceType(),
                    resource.resourceName(),
                    named.get(resourceKey(resource.resourceType(), resource.resourceName())),
                    data.validateOnly(),
                    () -> changes(context, resource))
                .thenApply(
                    outcome ->
                        new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(outcome.error().code())
                            .setErrorMessage(outcome.message())));
      }
      return AdminCalls.all(results)
          .thenApply(
              answered ->
                  new IncrementalAlterConfigsResponse(
                      new IncrementalAlterConfigsResponseData().setResponses(answered)));
    }

    private Changes changes(
        KafkaRequestContext context,
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource) {
      List<ConfigChange> changes = new ArrayList<>();
      for (IncrementalAlterConfigsRequestData.AlterableConfig config : resource.configs()) {
        changes.add(change(config.name(), config.configOperation(), config.value()));
      }
      return new Changes() {
        @Override
        public CompletableFuture<Void> applyToTopic(String topic, boolean validateOnly) {
          return admin.alterConfigs(context.request(), topic, changes, validateOnly);
        }

        @Override
        public List<ConfigChange> toBroker() {
          return changes;
        }
      };
    }

    /**
     * Kafka's operation id as a {@link ConfigChange} (the ids are {@link ConfigChange.Op}'s
     * ordinals).
     *
     * @throws InvalidRequestException for an unknown operation, or a value missing
     */
    static ConfigChange change(String name, byte operation, String value) {
      ConfigChange.Op[] ops = ConfigChange.Op.values();
      if (operation < 0 || operation >= ops.length) {
        throw new InvalidRequestException(
            "Unknown config operation " + operation + " for config " + name);
      }
      return new ConfigChange(name, ops[operation], value);
    }
  }
}
