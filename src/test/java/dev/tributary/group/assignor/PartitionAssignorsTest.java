package dev.tributary.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PartitionAssignorsTest {
  @Test
  void eachKafkaProtocolNameFindsTheAssignorOfThatName() {
    assertThat(PartitionAssignors.names()).containsExactly("range", "roundrobin", "sticky");
    for (String name : PartitionAssignors.names()) {
      assertThat(PartitionAssignors.byName(name).name()).isEqualTo(name);
    }
    assertThat(PartitionAssignors.byName("sticky")).isInstanceOf(StickyAssignor.class);
  }

  @Test
  void anUnknownNameIsRejectedNamingTheValidOnes() {
    assertThatThrownBy(() -> PartitionAssignors.byName("cooperative-sticky"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cooperative-sticky")
        .hasMessageContaining("range, roundrobin, sticky");
    assertThatThrownBy(() -> PartitionAssignors.byName(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
