package dev.tributary.bench;

import java.net.URI;
import java.util.Set;

/**
 * Settings of one {@code Bench consume} run. {@code records == 0} means "read every partition to
 * its end".
 */
record ConsumeOptions(
    URI url,
    String topic,
    int partitions,
    long maxBytes,
    long records,
    long fetchTimeoutMs,
    long timeoutMs) {

  static final Set<String> KNOWN =
      Set.of(
          "url", "topic", "partitions", "max-bytes", "records", "fetch-timeout-ms", "timeout-ms");

  static final String USAGE =
      """
      Usage: bench consume [options]
        Reads each partition (one reader per partition, in parallel) from its beginning offset to the end
        offset seen at start, with GET /topics/{topic}/partitions/{p}/records in the binary format.
        --url URL                 broker base URL                      (default http://127.0.0.1:8081)
        --topic NAME              topic                                (default bench)
        --partitions N            partitions to read, 0..N-1           (default 3)
        --max-bytes N             max_bytes per fetch                  (default 1048576)
        --records N               stop after N records in all (0 = read to the end) (default 0)
        --fetch-timeout-ms MS     long-poll timeout per fetch          (default 1000)
        --timeout-ms MS           give up if no progress for this long (default 30000)
      """;

  static ConsumeOptions parse(Args args) {
    return new ConsumeOptions(
        BenchUrls.baseUrl(args.string("url", "http://127.0.0.1:8081")),
        BenchUrls.topic(args.string("topic", "bench")),
        args.intInRange("partitions", 3, 1, 10_000),
        args.longInRange("max-bytes", 1_048_576, 1, Integer.MAX_VALUE),
        args.longInRange("records", 0, 0, Long.MAX_VALUE / 2),
        args.longInRange("fetch-timeout-ms", 1_000, 0, 60_000),
        args.longInRange("timeout-ms", 30_000, 1, 3_600_000));
  }
}
