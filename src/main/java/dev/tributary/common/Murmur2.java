package dev.tributary.common;

/**
 * MurmurHash2 (32-bit) exactly as kafka-clients' {@code Utils.murmur2} computes it, seed {@code
 * 0x9747b28c}, so that a keyed record lands in the same partition whether a Kafka client or
 * Tributary picks it. Stateless, thread-safe.
 */
public final class Murmur2 {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private Murmur2() {}

  public static int hash(byte[] data) {
    int length = data.length;
    int h = SEED ^ length;
    int blocks = length / 4;
    for (int i = 0; i < blocks; i++) {
      int i4 = i * 4;
      // Little-endian 4-byte blocks, as Kafka reads them.
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

  /**
   * Clears the sign bit. Kafka uses this rather than {@code Math.abs}, which stays negative for
   * {@code Integer.MIN_VALUE}; partition numbers must match Kafka's, so we must too.
   */
  public static int toPositive(int number) {
    return number & 0x7fffffff;
  }

  /** The partition Kafka's default partitioner picks for a record with a non-null key. */
  public static int partitionForKey(byte[] keyBytes, int numPartitions) {
    if (numPartitions <= 0) {
      throw new IllegalArgumentException("numPartitions must be positive: " + numPartitions);
    }
    return toPositive(hash(keyBytes)) % numPartitions;
  }
}
