package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.log.InvalidConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Dynamic broker configs: only the two throttle rates change at run time, as whole numbers of bytes
 * per second; a DELETE of an unset config is a no-op; the records replay into the image (a broker's
 * own value over the cluster default) and survive a snapshot.
 */
class BrokerConfigControlTest {
  private static final String LEADER = BrokerConfigControl.LEADER_THROTTLED_RATE;
  private static final String FOLLOWER = BrokerConfigControl.FOLLOWER_THROTTLED_RATE;

  private MetadataImage image = MetadataImage.EMPTY;

  private void commit(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
  }

  @Test
  void theRatesAreSetPerBrokerOrAsTheDefaultAndDeleted() {
    commit(BrokerConfigControl.alter(image, 4, List.of(ConfigChange.set(LEADER, " 1000000 "))));
    commit(
        BrokerConfigControl.alter(
            image, MetadataImage.DEFAULT_BROKER, List.of(ConfigChange.set(LEADER, "5"))));
    assertThat(image.brokerConfig(4, LEADER)).hasValue("1000000");
    assertThat(image.brokerConfig(1, LEADER)).as("the default").hasValue("5");
    assertThat(image.brokerConfig(1, FOLLOWER)).isEmpty();

    assertThat(BrokerConfigControl.alter(image, 4, List.of(ConfigChange.set(LEADER, "1000000"))))
        .as("the same value again: nothing to write")
        .isEmpty();
    commit(BrokerConfigControl.alter(image, 4, List.of(ConfigChange.delete(LEADER))));
    assertThat(image.brokerConfig(4, LEADER)).as("back to the default").hasValue("5");
    assertThat(BrokerConfigControl.alter(image, 4, List.of(ConfigChange.delete(FOLLOWER))))
        .as("deleting what is not set: Kafka's no-op")
        .isEmpty();
  }

  @Test
  void theConfigsSurviveASnapshotAndTheSerde() {
    commit(BrokerConfigControl.alter(image, 2, List.of(ConfigChange.set(FOLLOWER, "7"))));
    MetadataImage rebuilt = MetadataImage.EMPTY;
    for (MetadataRecord record : image.toRecords()) {
      MetadataRecord copy = MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record));
      assertThat(copy).isEqualTo(record);
      rebuilt = rebuilt.replay(rebuilt.lastOffset() + 1, copy);
    }
    assertThat(rebuilt.brokerConfigs()).isEqualTo(image.brokerConfigs());
  }

  @Test
  void otherConfigsBadRatesAndDuplicatesAreRefusedAndNothingIsWritten() {
    assertThatThrownBy(
            () ->
                BrokerConfigControl.alter(
                    image,
                    1,
                    List.of(
                        ConfigChange.set(LEADER, "1"), ConfigChange.set("log.retention.ms", "1"))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("Cannot update these configs dynamically: [log.retention.ms]");
    for (String bad : List.of("-1", "fast", "1.5", "")) {
      assertThatThrownBy(
              () -> BrokerConfigControl.alter(image, 1, List.of(ConfigChange.set(LEADER, bad))))
          .as(bad)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("bytes per second");
    }
    assertThatThrownBy(
            () ->
                BrokerConfigControl.alter(
                    image, 1, List.of(ConfigChange.set(LEADER, "1"), ConfigChange.delete(LEADER))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("Error due to duplicate config keys");
    assertThat(image.brokerConfigs()).isEmpty();
  }
}
