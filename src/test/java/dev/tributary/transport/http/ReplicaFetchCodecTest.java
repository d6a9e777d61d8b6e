package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.replication.ReplicaFetch;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The binary bodies of replica fetch and OffsetsForLeaderEpoch: exact round trips, the fetch
 * response written to a channel byte for byte as the format says (its batches straight from their
 * buffers), and refusal of bad input.
 */
class ReplicaFetchCodecTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final TopicPartition UNICODE_7 = new TopicPartition("zahlungsströme.ü", 7);

  private static ByteBuffer bytes(int size, int seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return ByteBuffer.wrap(data);
  }

  private static ReplicaFetch.Request fetchRequest() {
    return new ReplicaFetch.Request(
        2,
        1234567890123L,
        500,
        10 << 20,
        List.of(
            new ReplicaFetch.PartitionRequest(ORDERS_0, 4, 120, 1 << 20),
            new ReplicaFetch.PartitionRequest(UNICODE_7, 0, Long.MAX_VALUE, 1)));
  }

  private static ReplicaFetch.Response fetchResponse() {
    return new ReplicaFetch.Response(
        Errors.NONE,
        List.of(
            new ReplicaFetch.PartitionResponse(
                ORDERS_0, Errors.NONE, 100, 5, 130, 4, bytes(300, 1)),
            ReplicaFetch.PartitionResponse.error(UNICODE_7, Errors.FENCED_LEADER_EPOCH),
            new ReplicaFetch.PartitionResponse(
                new TopicPartition("x", 1),
                Errors.OFFSET_OUT_OF_RANGE,
                0,
                0,
                0,
                0,
                ByteBuffer.allocate(0))));
  }

  private static ReplicaFetch.EpochRequest epochRequest() {
    return new ReplicaFetch.EpochRequest(
        3,
        77,
        List.of(
            new ReplicaFetch.EpochPartitionRequest(ORDERS_0, 6, 5),
            new ReplicaFetch.EpochPartitionRequest(UNICODE_7, 2, 0)));
  }

  private static ReplicaFetch.EpochResponse epochResponse() {
    return new ReplicaFetch.EpochResponse(
        Errors.NONE,
        List.of(
            new ReplicaFetch.EpochPartitionResponse(
                ORDERS_0, Errors.NONE, new EpochEndOffset(4, 120), 5),
            new ReplicaFetch.EpochPartitionResponse(
                UNICODE_7, Errors.UNKNOWN_LEADER_EPOCH, EpochEndOffset.UNDEFINED, -1)));
  }

  private static ByteBuffer wrap(byte[] body) {
    return ByteBuffer.wrap(body);
  }

  private static byte[] content(ByteBuffer buffer) {
    ByteBuffer view = buffer.duplicate();
    byte[] content = new byte[view.remaining()];
    view.get(content);
    return content;
  }

  /**
   * The fetch response's body as the leader writes it (through a channel around a stream, as the
   * servlet's), checked against the size it declares beforehand.
   */
  private static byte[] written(ReplicaFetch.Response response) {
    ReplicaFetchCodec.EncodedFetchResponse encoded = ReplicaFetchCodec.encode(response);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      encoded.writeTo(Channels.newChannel(out));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat((long) out.size())
        .as("the size declared beforehand")
        .isEqualTo(encoded.sizeInBytes());
    return out.toByteArray();
  }

  /**
   * FetchResponse's bytes as the codec's class doc lays them out, written here without the codec
   * (DataOutputStream is big-endian), for comparing what it writes against the format.
   */
  private static byte[] byTheFormat(ReplicaFetch.Response response) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeShort(0);
      out.writeShort(response.error().code());
      out.writeInt(response.partitions().size());
      for (ReplicaFetch.PartitionResponse p : response.partitions()) {
        byte[] topic = p.topicPartition().topic().getBytes(StandardCharsets.UTF_8);
        out.writeShort(topic.length);
        out.write(topic);
        out.writeInt(p.topicPartition().partition());
        out.writeShort(p.error().code());
        out.writeLong(p.highWatermark());
        out.writeLong(p.logStartOffset());
        out.writeLong(p.logEndOffset());
        out.writeInt(p.leaderEpoch());
        byte[] records = content(p.records());
        out.writeInt(records.length);
        out.write(records);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * The response with each partition's records as a byte array, so that records compare by content.
   */
  private static List<String> describe(ReplicaFetch.Response response) {
    List<String> parts = new ArrayList<>();
    parts.add(response.error().name());
    for (ReplicaFetch.PartitionResponse p : response.partitions()) {
      byte[] content = content(p.records());
      parts.add(
          p.topicPartition()
              + " "
              + p.error()
              + " hw="
              + p.highWatermark()
              + " start="
              + p.logStartOffset()
              + " end="
              + p.logEndOffset()
              + " e"
              + p.leaderEpoch()
              + " "
              + Arrays.toString(content));
    }
    return parts;
  }

  // -------------------------------------------------------------------------------------------
  // round trips

  @Test
  void aFetchRequestRoundTrips() {
    assertThat(ReplicaFetchCodec.decodeRequest(wrap(ReplicaFetchCodec.encode(fetchRequest()))))
        .isEqualTo(fetchRequest());
  }

  @Test
  void aFetchResponseRoundTripsWithTheRecordsByteForByte() {
    byte[] body = written(fetchResponse());
    ReplicaFetch.Response decoded = ReplicaFetchCodec.decodeResponse(wrap(body));
    assertThat(describe(decoded)).isEqualTo(describe(fetchResponse()));
    assertThat(decoded.partitions().get(0).records().remaining()).isEqualTo(300);
  }

  @Test
  void aFetchResponseIsWrittenByteForByteAsTheFormatSays() {
    assertThat(written(fetchResponse())).isEqualTo(byTheFormat(fetchResponse()));
    ReplicaFetch.Response stale = new ReplicaFetch.Response(Errors.STALE_BROKER_EPOCH, List.of());
    assertThat(written(stale)).isEqualTo(byTheFormat(stale)).hasSize(8);
  }

  /**
   * The log hands out read-only views of its reads, which other readers may share: the batches are
   * written from their position, and neither position nor limit moves, however the channel takes
   * them (here at most five bytes a call).
   */
  @Test
  void writingLeavesTheBatchBuffersAsTheyWereAndSurvivesPartialWrites() throws IOException {
    ByteBuffer read = bytes(100, 3).position(7).limit(90).asReadOnlyBuffer();
    ReplicaFetch.Response response =
        new ReplicaFetch.Response(
            Errors.NONE,
            List.of(
                new ReplicaFetch.PartitionResponse(ORDERS_0, Errors.NONE, 9, 0, 12, 4, read),
                new ReplicaFetch.PartitionResponse(UNICODE_7, Errors.NONE, 1, 0, 1, 4, read)));
    ReplicaFetchCodec.EncodedFetchResponse encoded = ReplicaFetchCodec.encode(response);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WritableByteChannel fiveAtATime =
        new WritableByteChannel() {
          @Override
          public int write(ByteBuffer src) {
            int n = Math.min(5, src.remaining());
            for (int i = 0; i < n; i++) {
              out.write(src.get());
            }
            return n;
          }

          @Override
          public boolean isOpen() {
            return true;
          }

          @Override
          public void close() {}
        };
    encoded.writeTo(fiveAtATime);

    assertThat(out.toByteArray()).isEqualTo(byTheFormat(response)).isEqualTo(written(response));
    assertThat(read.position()).isEqualTo(7);
    assertThat(read.limit()).isEqualTo(90);
    assertThat(describe(ReplicaFetchCodec.decodeResponse(wrap(out.toByteArray()))))
        .isEqualTo(describe(response));
  }

  @Test
  void aFetchResponsesRecordsAreViewsOfTheBody() {
    byte[] body = written(fetchResponse());
    ReplicaFetch.Response decoded = ReplicaFetchCodec.decodeResponse(wrap(body));
    ByteBuffer records = decoded.partitions().get(0).records();
    byte first = records.get(records.position());
    // Flip the first record byte in the body: the decoded records must see it (no copy was made).
    int index = indexOf(body, bytes(300, 1).array());
    body[index] = (byte) ~body[index];
    assertThat(records.get(records.position())).isEqualTo((byte) ~first);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }

  @Test
  void anEpochRequestAndResponseRoundTrip() {
    assertThat(ReplicaFetchCodec.decodeEpochRequest(wrap(ReplicaFetchCodec.encode(epochRequest()))))
        .isEqualTo(epochRequest());
    assertThat(
            ReplicaFetchCodec.decodeEpochResponse(wrap(ReplicaFetchCodec.encode(epochResponse()))))
        .isEqualTo(epochResponse());
  }

  @Test
  void wholeRequestErrorsAndEmptyPartitionListsRoundTrip() {
    ReplicaFetch.Response stale = new ReplicaFetch.Response(Errors.STALE_BROKER_EPOCH, List.of());
    assertThat(ReplicaFetchCodec.decodeResponse(wrap(written(stale)))).isEqualTo(stale);
    ReplicaFetch.EpochResponse staleEpochs =
        new ReplicaFetch.EpochResponse(Errors.STALE_BROKER_EPOCH, List.of());
    assertThat(ReplicaFetchCodec.decodeEpochResponse(wrap(ReplicaFetchCodec.encode(staleEpochs))))
        .isEqualTo(staleEpochs);
    ReplicaFetch.Request none = new ReplicaFetch.Request(1, -1, 0, 0, List.of());
    assertThat(ReplicaFetchCodec.decodeRequest(wrap(ReplicaFetchCodec.encode(none))))
        .isEqualTo(none);
  }

  @Test
  void aBodyAtAnOffsetInsideALargerBufferDecodes() {
    byte[] body = written(fetchResponse());
    byte[] padded = new byte[body.length + 20];
    System.arraycopy(body, 0, padded, 10, body.length);
    ByteBuffer slice = ByteBuffer.wrap(padded, 10, body.length).slice();
    assertThat(describe(ReplicaFetchCodec.decodeResponse(slice)))
        .isEqualTo(describe(fetchResponse()));
    assertThat(slice.position()).as("the caller's buffer is not consumed").isZero();
  }

  @Test
  void randomMessagesRoundTrip() {
    long seed = Long.getLong("tributary.seed", 20261201L);
    Random random = new Random(seed);
    for (int i = 0; i < 200; i++) {
      int count = random.nextInt(5);
      List<ReplicaFetch.PartitionRequest> asks = new ArrayList<>();
      List<ReplicaFetch.PartitionResponse> answers = new ArrayList<>();
      List<ReplicaFetch.EpochPartitionRequest> epochAsks = new ArrayList<>();
      List<ReplicaFetch.EpochPartitionResponse> epochAnswers = new ArrayList<>();
      Errors[] errors = Errors.values();
      for (int p = 0; p < count; p++) {
        TopicPartition tp = new TopicPartition("t" + random.nextInt(1000), random.nextInt(100));
        asks.add(
            new ReplicaFetch.PartitionRequest(
                tp, random.nextInt(), random.nextLong(), random.nextInt()));
        answers.add(
            new ReplicaFetch.PartitionResponse(
                tp,
                errors[random.nextInt(errors.length)],
                random.nextLong(),
                random.nextLong(),
                random.nextLong(),
                random.nextInt(),
                bytes(random.nextInt(200), random.nextInt())));
        epochAsks.add(
            new ReplicaFetch.EpochPartitionRequest(tp, random.nextInt(), random.nextInt()));
        epochAnswers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp,
                errors[random.nextInt(errors.length)],
                new EpochEndOffset(random.nextInt(), random.nextLong()),
                random.nextLong()));
      }
      ReplicaFetch.Request request =
          new ReplicaFetch.Request(
              random.nextInt(), random.nextLong(), random.nextInt(), random.nextInt(), asks);
      ReplicaFetch.Response response =
          new ReplicaFetch.Response(errors[random.nextInt(errors.length)], answers);
      ReplicaFetch.EpochRequest epochRequest =
          new ReplicaFetch.EpochRequest(random.nextInt(), random.nextLong(), epochAsks);
      ReplicaFetch.EpochResponse epochResponse =
          new ReplicaFetch.EpochResponse(errors[random.nextInt(errors.length)], epochAnswers);
      String why = "seed " + seed + " (-Dtributary.seed=" + seed + "), message " + i;
      assertThat(ReplicaFetchCodec.decodeRequest(wrap(ReplicaFetchCodec.encode(request))))
          .as(why)
          .isEqualTo(request);
      assertThat(describe(ReplicaFetchCodec.decodeResponse(wrap(written(response)))))
          .as(why)
          .isEqualTo(describe(response));
      assertThat(written(response)).as(why).isEqualTo(byTheFormat(response));
      assertThat(ReplicaFetchCodec.decodeEpochRequest(wrap(ReplicaFetchCodec.encode(epochRequest))))
          .as(why)
          .isEqualTo(epochRequest);
      assertThat(
              ReplicaFetchCodec.decodeEpochResponse(wrap(ReplicaFetchCodec.encode(epochResponse))))
          .as(why)
          .isEqualTo(epochResponse);
    }
  }

  // ------------------------------------------------------------------------------------------- bad
  // input

  private record Codec(String name, byte[] body, Function<ByteBuffer, Object> decoder) {}

  private static List<Codec> codecs() {
    return List.of(
        new Codec(
            "fetch request",
            ReplicaFetchCodec.encode(fetchRequest()),
            ReplicaFetchCodec::decodeRequest),
        new Codec("fetch response", written(fetchResponse()), ReplicaFetchCodec::decodeResponse),
        new Codec(
            "epoch request",
            ReplicaFetchCodec.encode(epochRequest()),
            ReplicaFetchCodec::decodeEpochRequest),
        new Codec(
            "epoch response",
            ReplicaFetchCodec.encode(epochResponse()),
            ReplicaFetchCodec::decodeEpochResponse));
  }

  @Test
  void everyTruncationOfEveryMessageIsRefused() {
    for (Codec codec : codecs()) {
      for (int length = 0; length < codec.body().length; length++) {
        ByteBuffer prefix = ByteBuffer.wrap(codec.body(), 0, length);
        assertThatThrownBy(() -> codec.decoder().apply(prefix))
            .as("%s cut to %d of %d bytes", codec.name(), length, codec.body().length)
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  @Test
  void trailingBytesAreRefused() {
    for (Codec codec : codecs()) {
      byte[] longer = Arrays.copyOf(codec.body(), codec.body().length + 1);
      assertThatThrownBy(() -> codec.decoder().apply(ByteBuffer.wrap(longer)))
          .as(codec.name())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("trailing");
    }
  }

  @Test
  void anotherVersionIsRefused() {
    for (Codec codec : codecs()) {
      byte[] body = codec.body().clone();
      body[1] = 1;
      assertThatThrownBy(() -> codec.decoder().apply(ByteBuffer.wrap(body)))
          .as(codec.name())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("version");
    }
  }

  @Test
  void anInvalidPartitionCountIsRefused() {
    for (int count : new int[] {-1, 100_001, Integer.MAX_VALUE}) {
      ByteBuffer body =
          ByteBuffer.allocate(8).putShort((short) 0).putShort((short) 0).putInt(count).flip();
      assertThatThrownBy(() -> ReplicaFetchCodec.decodeResponse(body))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("count");
    }
  }

  @Test
  void aBadTopicNameLengthANegativePartitionAndBadRecordSizesAreRefused() {
    // FetchResponse with one partition: version, error, count, then the partition.
    Function<ByteBuffer, ByteBuffer> header =
        b -> b.putShort((short) 0).putShort((short) 0).putInt(1);
    ByteBuffer negativeLength = header.apply(ByteBuffer.allocate(64)).putShort((short) -1).flip();
    ByteBuffer longName =
        header.apply(ByteBuffer.allocate(64)).putShort((short) 40).put(new byte[10]).flip();
    ByteBuffer negativePartition =
        header.apply(ByteBuffer.allocate(64)).putShort((short) 1).put((byte) 'x').putInt(-3).flip();
    for (int size : new int[] {-1, 1_000}) {
      ByteBuffer badSize =
          header
              .apply(ByteBuffer.allocate(64))
              .putShort((short) 1)
              .put((byte) 'x')
              .putInt(0)
              .putShort((short) 0)
              .putLong(0)
              .putLong(0)
              .putLong(0)
              .putInt(0)
              .putInt(size)
              .put(new byte[4])
              .flip();
      assertThatThrownBy(() -> ReplicaFetchCodec.decodeResponse(badSize))
          .as("records size %d", size)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("claim");
    }
    for (ByteBuffer body : List.of(negativeLength, longName, negativePartition)) {
      assertThatThrownBy(() -> ReplicaFetchCodec.decodeResponse(body))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void anErrorCodeNotKnownHereDecodesAsUnknownServerError() {
    byte[] body = written(new ReplicaFetch.Response(Errors.NONE, List.of()));
    body[3] = 99; // no Kafka error has code 99
    assertThat(ReplicaFetchCodec.decodeResponse(ByteBuffer.wrap(body)).error())
        .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
  }

  @Test
  void randomlyCorruptedBodiesEitherDecodeOrAreRefusedWithIllegalArgument() {
    long seed = Long.getLong("tributary.seed", 7L);
    Random random = new Random(seed);
    for (Codec codec : codecs()) {
      for (int i = 0; i < 2_000; i++) {
        byte[] body = codec.body().clone();
        for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
          body[random.nextInt(body.length)] = (byte) random.nextInt(256);
        }
        try {
          codec.decoder().apply(ByteBuffer.wrap(body));
        } catch (IllegalArgumentException expected) {
          // refused: fine
        } catch (RuntimeException e) {
          throw new AssertionError(
              codec.name()
                  + ", seed "
                  + seed
                  + " (-Dtributary.seed="
                  + seed
                  + "), case "
                  + i
                  + ": "
                  + e,
              e);
        }
      }
    }
  }
}
