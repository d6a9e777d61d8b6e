package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The binary bodies of a forwarded produce: exact round trips, and every truncated or garbled body
 * refused with {@link IllegalArgumentException} and nothing else.
 */
class ProduceCodecTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final TopicPartition UNICODE_7 = new TopicPartition("zahlungsströme.ü", 7);

  private static ByteBuffer bytes(int size, int seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return ByteBuffer.wrap(data);
  }

  private static ProduceCodec.Request request() {
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    batches.put(UNICODE_7, bytes(300, 1));
    batches.put(ORDERS_0, bytes(1, 2));
    batches.put(new TopicPartition("empty", 3), ByteBuffer.allocate(0));
    return new ProduceCodec.Request(
        Acks.ALL, 30_000, 1_234_567_890_123L, "User:alice", "10.0.0.1", batches);
  }

  private static Map<TopicPartition, ProducePartitionResult> response() {
    Map<TopicPartition, ProducePartitionResult> results = new LinkedHashMap<>();
    results.put(
        UNICODE_7,
        new ProducePartitionResult(Errors.NONE, null, 120, 129, 1_700_000_000_000L, 5, 10));
    results.put(
        ORDERS_0,
        ProducePartitionResult.failed(Errors.NOT_LEADER_OR_FOLLOWER, "Broker 2 is not the leader"));
    results.put(
        new TopicPartition("x", 1),
        ProducePartitionResult.failed(Errors.REQUEST_TIMED_OUT, "ünïcode message"));
    return results;
  }

  private static ByteBuffer wrap(byte[] body) {
    return ByteBuffer.wrap(body);
  }

  @Test
  void aRequestRoundTripsExactlyInItsOrderAndItsBatchesAreTheSameBytes() {
    ProduceCodec.Request sent = request();

    ProduceCodec.Request received = ProduceCodec.decodeRequest(wrap(ProduceCodec.encode(sent)));

    assertThat(received.acks()).isEqualTo(Acks.ALL);
    assertThat(received.timeoutMs()).isEqualTo(30_000);
    assertThat(received.metadataOffset()).isEqualTo(1_234_567_890_123L);
    assertThat(received.principal()).isEqualTo("User:alice");
    assertThat(received.clientAddress()).isEqualTo("10.0.0.1");
    assertThat(List.copyOf(received.batches().keySet()))
        .containsExactlyElementsOf(sent.batches().keySet());
    sent.batches().forEach((tp, batch) -> assertThat(received.batches().get(tp)).isEqualTo(batch));
  }

  @Test
  void everyAcksSettingAndNullStringsRoundTrip() {
    for (Acks acks : Acks.values()) {
      ProduceCodec.Request sent = new ProduceCodec.Request(acks, 0, -1, null, null, Map.of());
      assertThat(ProduceCodec.decodeRequest(wrap(ProduceCodec.encode(sent)))).isEqualTo(sent);
    }
  }

  @Test
  void encodingLeavesTheCallersBuffersAlone() {
    ProduceCodec.Request sent = request();
    ByteBuffer batch = sent.batches().get(UNICODE_7);

    ProduceCodec.encode(sent);

    assertThat(batch.position()).isZero();
    assertThat(batch.remaining()).isEqualTo(300);
  }

  @Test
  void decodingLeavesTheBodysPositionAloneAndSharesItsBytes() {
    ByteBuffer body = wrap(ProduceCodec.encode(request()));

    ProduceCodec.Request received = ProduceCodec.decodeRequest(body);

    assertThat(body.position()).isZero();
    assertThat(received.batches().get(UNICODE_7).array()).isSameAs(body.array());
  }

  @Test
  void aResponseRoundTripsExactly() {
    Map<TopicPartition, ProducePartitionResult> sent = response();

    Map<TopicPartition, ProducePartitionResult> received =
        ProduceCodec.decodeResponse(wrap(ProduceCodec.encode(sent)));

    assertThat(received).isEqualTo(sent);
    assertThat(List.copyOf(received.keySet())).containsExactlyElementsOf(sent.keySet());
  }

  @Test
  void anErrorCodeNotKnownHereDecodesAsUnknownServerError() {
    byte[] body =
        ProduceCodec.encode(
            Map.of(ORDERS_0, ProducePartitionResult.failed(Errors.NOT_CONTROLLER, "m")));
    ByteBuffer patched = wrap(body);
    int codeAt = 2 + 4 + 2 + "orders".length() + 4;
    assertThat(patched.getShort(codeAt)).isEqualTo(Errors.NOT_CONTROLLER.code());
    patched.putShort(codeAt, (short) 9_999);

    assertThat(ProduceCodec.decodeResponse(patched).get(ORDERS_0).error())
        .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
  }

  @Test
  void everyTruncationIsRefusedWithIllegalArgumentException() {
    assertEveryTruncationRefused(ProduceCodec.encode(request()), ProduceCodec::decodeRequest);
    assertEveryTruncationRefused(ProduceCodec.encode(response()), ProduceCodec::decodeResponse);
  }

  private static void assertEveryTruncationRefused(byte[] body, Function<ByteBuffer, ?> decode) {
    for (int length = 0; length < body.length; length++) {
      byte[] cut = Arrays.copyOf(body, length);
      assertThatThrownBy(() -> decode.apply(wrap(cut)))
          .as("%d of %d bytes", length, body.length)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void trailingBytesAreRefused() {
    byte[] body = ProduceCodec.encode(request());
    byte[] longer = Arrays.copyOf(body, body.length + 1);

    assertThatThrownBy(() -> ProduceCodec.decodeRequest(wrap(longer)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trailing");
  }

  @Test
  void anotherVersionBadAcksADuplicatePartitionOrANegativeSizeAreRefused() {
    byte[] body = ProduceCodec.encode(request());
    assertRefused(patch(body, b -> b.putShort(0, (short) 1)), "version 1");
    assertRefused(patch(body, b -> b.put(2, (byte) 5)), "invalid acks 5");

    Map<TopicPartition, ByteBuffer> twice = new LinkedHashMap<>();
    twice.put(ORDERS_0, bytes(4, 1));
    twice.put(new TopicPartition("orders", 1), bytes(4, 2));
    byte[] two = ProduceCodec.encode(new ProduceCodec.Request(Acks.LEADER, 1, 1, "p", "a", twice));
    int secondPartitionAt = two.length - 4 - 4 - 4;
    assertRefused(patch(two, b -> b.putInt(secondPartitionAt, 0)), "appears twice");
    int firstSizeAt = 2 + 1 + 4 + 8 + 3 + 3 + 4 + 8 + 4;
    assertRefused(patch(two, b -> b.putInt(firstSizeAt, -1)), "invalid batch size -1");
    assertRefused(patch(two, b -> b.putInt(firstSizeAt - 4, -2)), "negative partition");
  }

  private static byte[] patch(byte[] body, java.util.function.Consumer<ByteBuffer> change) {
    byte[] copy = body.clone();
    change.accept(ByteBuffer.wrap(copy));
    return copy;
  }

  private static void assertRefused(byte[] body, String why) {
    assertThatThrownBy(() -> ProduceCodec.decodeRequest(wrap(body)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(why);
  }

  @Test
  void randomGarbageIsRefusedWithIllegalArgumentExceptionOrDecodes() {
    Random random = new Random(17);
    byte[] request = ProduceCodec.encode(request());
    byte[] response = ProduceCodec.encode(response());
    for (int i = 0; i < 20_000; i++) {
      byte[] body = (i % 2 == 0 ? request : response).clone();
      int flips = 1 + random.nextInt(4);
      for (int f = 0; f < flips; f++) {
        body[random.nextInt(body.length)] = (byte) random.nextInt(256);
      }
      Function<ByteBuffer, ?> decode =
          i % 2 == 0 ? ProduceCodec::decodeRequest : ProduceCodec::decodeResponse;
      try {
        decode.apply(wrap(body));
      } catch (IllegalArgumentException expected) {
        // refused, as it must be
      } catch (RuntimeException e) {
        throw new AssertionError("body " + i + " failed with " + e, e);
      }
    }
  }
}
