package dev.tributary.log.record;

import static dev.tributary.log.record.ByteUtils.readVarint;
import static dev.tributary.log.record.ByteUtils.readVarlong;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Decodes the records section of one batch (already decompressed), lazily, one record per {@link
 * #next()}. The record layout is documented on {@link RecordBatchBuilder}.
 *
 * <p>Framing is checked strictly, so bad bytes surface as {@link CorruptRecordException}, never as
 * an index error: every length must fit inside its record, every record inside the section, and
 * exactly {@code recordCount} records must fill the section. Offset deltas are not required to be
 * contiguous (compaction leaves gaps). Not thread-safe.
 */
final class RecordIterator implements Iterator<Record> {
  /**
   * The smallest record body: attributes, timestampDelta, offsetDelta, keyLength, valueLength,
   * headerCount.
   */
  private static final int MIN_BODY_BYTES = 6;

  private final ByteBuffer section;
  private final long baseOffset;
  private final long baseTimestamp;
  private final boolean isLogAppendTime;

  /**
   * The batch's max timestamp: every record's timestamp in LogAppendTime batches (Kafka ignores the
   * deltas).
   */
  private final long logAppendTime;

  private final int recordCount;

  /** Records returned so far. Invariant: read <= recordCount. */
  private int read;

  RecordIterator(ByteBuffer section, RecordBatch batch) {
    this.section = section;
    this.baseOffset = batch.baseOffset();
    this.baseTimestamp = batch.baseTimestamp();
    this.isLogAppendTime = batch.isLogAppendTime();
    this.logAppendTime = batch.maxTimestamp();
    this.recordCount = batch.recordCount();
    if (recordCount < 0) {
      throw new CorruptRecordException("negative record count " + recordCount + " in " + batch);
    }
    checkNothingAfterLastRecord();
  }

  @Override
  public boolean hasNext() {
    return read < recordCount;
  }

  @Override
  public Record next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    int at = section.position();
    Record record;
    try {
      record = readRecord();
    } catch (BufferUnderflowException e) {
      throw new CorruptRecordException(where(at) + " ends inside a length field");
    }
    read++;
    checkNothingAfterLastRecord();
    return record;
  }

  private void checkNothingAfterLastRecord() {
    if (read == recordCount && section.hasRemaining()) {
      throw new CorruptRecordException(
          section.remaining()
              + " bytes follow the last of "
              + recordCount
              + " records in the batch");
    }
  }

  private String where(int at) {
    return "record " + read + " of " + recordCount + " (at byte " + at + " of the records section)";
  }

  private Record readRecord() {
    int at = section.position();
    int length = readVarint(section);
    if (length < MIN_BODY_BYTES || length > section.remaining()) {
      throw new CorruptRecordException(
          where(at)
              + " has length "
              + length
              + " with "
              + section.remaining()
              + " bytes left in the batch");
    }
    ByteBuffer body = section.slice(section.position(), length);
    section.position(section.position() + length);

    body.get(); // attributes: unused in v2
    long timestampDelta = readVarlong(body);
    int offsetDelta = readVarint(body);
    ByteBuffer key = readBytes(body, at, "key");
    ByteBuffer value = readBytes(body, at, "value");
    int headerCount = readVarint(body);
    // Each header takes at least 2 bytes; checking first keeps a bad count from sizing a huge list.
    if (headerCount < 0 || headerCount > body.remaining() / 2) {
      throw new CorruptRecordException(where(at) + " has invalid header count " + headerCount);
    }
    List<Header> headers = headerCount == 0 ? List.of() : new ArrayList<>(headerCount);
    for (int i = 0; i < headerCount; i++) {
      ByteBuffer headerKey = readBytes(body, at, "header key");
      if (headerKey == null) {
        throw new CorruptRecordException(where(at) + " has a header with a null key");
      }
      ByteBuffer headerValue = readBytes(body, at, "header value");
      headers.add(
          new Header(StandardCharsets.UTF_8.decode(headerKey).toString(), toArray(headerValue)));
    }
    if (body.hasRemaining()) {
      throw new CorruptRecordException(
          where(at) + " has " + body.remaining() + " bytes after its last header");
    }
    long timestamp = isLogAppendTime ? logAppendTime : baseTimestamp + timestampDelta;
    return new Record(baseOffset + offsetDelta, timestamp, key, value, headers);
  }

  /** A length-prefixed field as a read-only slice, or null for length -1. */
  private ByteBuffer readBytes(ByteBuffer body, int at, String field) {
    int length = readVarint(body);
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > body.remaining()) {
      throw new CorruptRecordException(
          where(at)
              + " has "
              + field
              + " length "
              + length
              + " with "
              + body.remaining()
              + " bytes left in it");
    }
    ByteBuffer bytes = body.slice(body.position(), length).asReadOnlyBuffer();
    body.position(body.position() + length);
    return bytes;
  }

  private static byte[] toArray(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }
}
