package dev.tributary.kafka;

import dev.tributary.log.LogFileSlice;
import java.io.IOException;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.DefaultRecordsSend;
import org.apache.kafka.common.record.internal.RecordsSend;
import org.apache.kafka.common.record.internal.TransferableRecords;

/**
 * A fetch response's records still in the segment file (Kafka's FileRecords slice): kafka-clients'
 * response writer sends them with {@link TransferableChannel#transferFrom}, which on a plaintext
 * connection is {@code FileChannel.transferTo} (sendfile: the bytes never enter the JVM) and on TLS
 * encrypts through a buffer. The stored batches go out byte for byte.
 *
 * <p>If the log was truncated, its segments swapped by the cleaner or the segment deleted since the
 * read, the write throws and the connection closes; the client reconnects and fetches again, which
 * is what Kafka's clients do on any broken connection.
 */
final class LogSliceRecords implements TransferableRecords {
  private final LogFileSlice slice;

  LogSliceRecords(LogFileSlice slice) {
    this.slice = slice;
  }

  @Override
  public int sizeInBytes() {
    return slice.sizeInBytes();
  }

  @Override
  public RecordsSend<? extends TransferableRecords> toSend() {
    return new DefaultRecordsSend<>(this);
  }

  @Override
  public int writeTo(TransferableChannel channel, int previouslyWritten, int remaining)
      throws IOException {
    return (int) slice.writeTo(previouslyWritten, remaining, channel::transferFrom);
  }

  @Override
  public String toString() {
    return "LogSliceRecords(" + slice + ")";
  }
}
