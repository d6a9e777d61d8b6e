package dev.tributary.log.record;

/**
 * The compression codec of a batch, attributes bits 0-2, with Kafka's ids. Tributary stores
 * compressed batches exactly as they arrive; it decompresses only to render records (for example as
 * JSON over HTTP).
 */
public enum CompressionType {
  NONE(0, "none"),
  GZIP(1, "gzip"),
  SNAPPY(2, "snappy"),
  LZ4(3, "lz4"),
  ZSTD(4, "zstd");

  public final int id;
  public final String kafkaName;

  CompressionType(int id, String kafkaName) {
    this.id = id;
    this.kafkaName = kafkaName;
  }

  public static CompressionType forId(int id) {
    for (CompressionType type : values()) {
      if (type.id == id) {
        return type;
      }
    }
    throw new CorruptRecordException("unknown compression codec id " + id);
  }
}
