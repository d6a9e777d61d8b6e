package dev.tributary.demo;

/**
 * Kafka's default partitioner for a keyed record, computed on the client side as a Kafka producer
 * does (kafka-clients' {@code Utils.murmur2} and {@code BuiltInPartitioner}): {@code
 * toPositive(murmur2(keyBytes)) % partitions}, murmur2 with seed {@code 0x9747b28c}. The partitions
 * demo computes it here, independently of the broker, to show the broker agrees.
 */
final class Murmur2 {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private Murmur2() {}

  static int hash(byte[] data) {
    int length = data.length;
    int h = SEED ^ length;
    int length4 = length / 4;
    for (int i = 0; i < length4; i++) {
      int i4 = i * 4;
      int k =
          (data[i4] & 0xff)
              + ((data[i4 + 1] & 0xff) << 8)
              + ((data[i4 + 2] & 0xff) << 16)
              + ((data[i4 + 3] & 0xff) << 24);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = length & ~3;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= M;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }

  /** The partition Kafka's default partitioner gives a record with this key. */
  static int partition(byte[] key, int partitions) {
    return (hash(key) & 0x7fffffff) % partitions;
  }
}
