package dev.tributary.kafka;

import dev.tributary.server.ConfigDescriptions;
import dev.tributary.server.ConfigDescriptions.ConfigEntry;
import dev.tributary.server.ConfigDescriptions.Synonym;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/** {@link ConfigDescriptions}' entries as Kafka's DescribeConfigs and CreateTopics tell them. */
final class ConfigEntries {
  private ConfigEntries() {}

  static ConfigSource source(ConfigDescriptions.Source source) {
    return switch (source) {
      case DYNAMIC_TOPIC_CONFIG -> ConfigSource.TOPIC_CONFIG;
      case STATIC_BROKER_CONFIG -> ConfigSource.STATIC_BROKER_CONFIG;
      case DYNAMIC_BROKER_CONFIG -> ConfigSource.DYNAMIC_BROKER_CONFIG;
      case DYNAMIC_DEFAULT_BROKER_CONFIG -> ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG;
      case DEFAULT_CONFIG -> ConfigSource.DEFAULT_CONFIG;
    };
  }

  static ConfigType type(ConfigDescriptions.Type type) {
    return switch (type) {
      case BOOLEAN -> ConfigType.BOOLEAN;
      case STRING -> ConfigType.STRING;
      case INT -> ConfigType.INT;
      case LONG -> ConfigType.LONG;
      case DOUBLE -> ConfigType.DOUBLE;
      case LIST -> ConfigType.LIST;
      case PASSWORD -> ConfigType.PASSWORD;
    };
  }

  /**
   * One config of a DescribeConfigs answer; synonyms and documentation only when asked for (as
   * Kafka: an empty list and null otherwise).
   */
  static DescribeConfigsResourceResult described(
      ConfigEntry entry, boolean includeSynonyms, boolean includeDocumentation) {
    DescribeConfigsResourceResult result =
        new DescribeConfigsResourceResult()
            .setName(entry.name())
            .setValue(entry.value())
            .setReadOnly(entry.readOnly())
            .setConfigSource(source(entry.source()).id())
            .setIsSensitive(entry.sensitive())
            .setConfigType(type(entry.type()).id())
            .setDocumentation(includeDocumentation ? entry.documentation() : null);
    if (includeSynonyms) {
      for (Synonym synonym : entry.synonyms()) {
        result
            .synonyms()
            .add(
                new DescribeConfigsSynonym()
                    .setName(synonym.name())
                    .setValue(synonym.value())
                    .setSource(source(synonym.source()).id()));
      }
    }
    return result;
  }

  /** One config of a created topic, as CreateTopics v5+ answers it. */
  static CreatableTopicConfigs created(ConfigEntry entry) {
    return new CreatableTopicConfigs()
        .setName(entry.name())
        .setValue(entry.value())
        .setReadOnly(entry.readOnly())
        .setConfigSource(source(entry.source()).id())
        .setIsSensitive(entry.sensitive());
  }
}
