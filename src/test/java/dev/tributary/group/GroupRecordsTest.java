package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.GroupRecords.StoredGroup;
import dev.tributary.group.GroupRecords.StoredMember;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The __consumer_offsets keys and values against Kafka's schemas. The expected bytes are what Kafka
 * 4.4's generated OffsetCommitKey, GroupMetadataKey, OffsetCommitValue (v3) and GroupMetadataValue
 * (v3) serialize with MessageUtil.toVersionPrefixedBytes for the same fields (checked once against
 * kafka-group-coordinator 4.4.0, which is not on the test classpath), spelled out field by field.
 */
class GroupRecordsTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void anOffsetKeyIsVersionOneGroupTopicPartition() {
    byte[] key = GroupRecords.offsetKey("g", new TopicPartition("t", 3));
    assertEquals("0001" + "00016" + "7" + "0001" + "74" + "00000003", HEX.formatHex(key));
    assertEquals(
        new GroupRecords.OffsetKey("g", new TopicPartition("t", 3)),
        GroupRecords.readKey(ByteBuffer.wrap(key)));
  }

  @Test
  void aGroupKeyIsVersionTwoGroup() {
    byte[] key = GroupRecords.groupKey("g");
    assertEquals("0002" + "000167", HEX.formatHex(key));
    assertEquals(new GroupRecords.GroupKey("g"), GroupRecords.readKey(ByteBuffer.wrap(key)));
  }

  @Test
  void anOffsetValueIsVersionThreeOffsetLeaderEpochMetadataTimestamp() {
    OffsetAndMetadata o = new OffsetAndMetadata(42, 5, "md", 1234);
    byte[] value = GroupRecords.offsetValue(o);
    assertEquals(
        "0003" + "000000000000002a" + "00000005" + "00026d64" + "00000000000004d2",
        HEX.formatHex(value));
    assertEquals(o, GroupRecords.readOffsetValue(ByteBuffer.wrap(value)));
  }

  @Test
  void anOffsetValueOfVersionOneWithItsExpireTimestampIsRead() {
    ByteBuffer v1 =
        ByteBuffer.wrap(
            HEX.parseHex(
                "0001" + "000000000000002a" + "0000" + "00000000000004d2" + "ffffffffffffffff"));
    assertEquals(new OffsetAndMetadata(42, -1, "", 1234), GroupRecords.readOffsetValue(v1));
  }

  @Test
  void aGroupValueIsVersionThreeWithItsMembers() {
    StoredGroup g =
        new StoredGroup(
            "consumer",
            4,
            "range",
            "m1",
            99,
            List.of(
                new StoredMember(
                    "m1", null, "c", "/h", 20, 10, new byte[] {1, 2}, new byte[] {3})));
    byte[] value = GroupRecords.groupValue(g);
    String expected =
        "0003"
            + "0008636f6e73756d6572" // protocolType "consumer"
            + "00000004" // generation
            + "000572616e6765" // protocol "range"
            + "00026d31" // leader "m1"
            + "0000000000000063" // currentStateTimestamp 99
            + "00000001" // one member
            + "00026d31" // memberId
            + "ffff" // groupInstanceId null
            + "000163" // clientId "c"
            + "00022f68" // clientHost "/h"
            + "00000014" // rebalanceTimeout 20
            + "0000000a" // sessionTimeout 10
            + "000000020102" // subscription
            + "0000000103"; // assignment
    assertEquals(expected, HEX.formatHex(value));
    StoredGroup back = GroupRecords.readGroupValue(ByteBuffer.wrap(value));
    assertEquals(g.protocolType(), back.protocolType());
    assertEquals(g.generationId(), back.generationId());
    assertEquals(g.protocolName(), back.protocolName());
    assertEquals(g.leaderId(), back.leaderId());
    assertEquals(g.stateTimestampMs(), back.stateTimestampMs());
    StoredMember m = back.members().get(0);
    assertEquals(
        List.of("m1", "c", "/h", 20, 10),
        List.of(
            m.memberId(),
            m.clientId(),
            m.clientHost(),
            m.rebalanceTimeoutMs(),
            m.sessionTimeoutMs()));
    assertArrayEquals(new byte[] {1, 2}, m.subscription());
    assertArrayEquals(new byte[] {3}, m.assignment());
  }

  @Test
  void aStaticMembersInstanceIdIsStoredInItsSlotAndReadBack() {
    StoredGroup g =
        new StoredGroup(
            "consumer",
            2,
            "range",
            "m1",
            5,
            List.of(new StoredMember("m1", "i1", "c", "/h", 20, 10, new byte[0], new byte[0])));
    byte[] value = GroupRecords.groupValue(g);
    assertTrue(
        HEX.formatHex(value).contains("00026d31" + "00026931" + "000163"),
        "memberId, then groupInstanceId \"i1\", then clientId");
    assertEquals(
        "i1",
        GroupRecords.readGroupValue(ByteBuffer.wrap(value)).members().get(0).groupInstanceId());
  }

  @Test
  void anEmptyGroupValueHasNullProtocolAndLeaderAndNoMembers() {
    byte[] value =
        GroupRecords.groupValue(new StoredGroup("consumer", 5, null, null, 7, List.of()));
    assertEquals(
        "0003"
            + "0008636f6e73756d6572"
            + "00000005"
            + "ffff"
            + "ffff"
            + "0000000000000007"
            + "00000000",
        HEX.formatHex(value));
    StoredGroup back = GroupRecords.readGroupValue(ByteBuffer.wrap(value));
    assertNull(back.protocolName());
    assertNull(back.leaderId());
    assertEquals(List.of(), back.members());
  }

  @Test
  void nonAsciiNamesRoundTripWithUtf8Lengths() {
    TopicPartition tp = new TopicPartition("zamówienia", 0);
    byte[] key = GroupRecords.offsetKey("grupa-ż", tp);
    assertEquals(
        2
            + 2
            + "grupa-ż".getBytes(java.nio.charset.StandardCharsets.UTF_8).length
            + 2
            + "zamówienia".getBytes(java.nio.charset.StandardCharsets.UTF_8).length
            + 4,
        key.length);
    assertEquals(
        new GroupRecords.OffsetKey("grupa-ż", tp), GroupRecords.readKey(ByteBuffer.wrap(key)));
  }

  @Test
  void anUnknownKeyVersionIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> GroupRecords.readKey(ByteBuffer.wrap(HEX.parseHex("0003000167"))));
  }
}
