package dev.tributary.bench;

import java.net.URI;
import java.util.Set;

/**
 * Settings of one {@code Bench produce} run.
 *
 * <p>{@code records} counts only measured records; {@code warmupRecords} more are sent first and
 * left out of every figure.
 */
record ProduceOptions(
    URI url,
    String topic,
    int partitions,
    long records,
    int recordSizeBytes,
    int batchRecords,
    int concurrency,
    String acks,
    PayloadFormat format,
    long warmupRecords,
    long requestTimeoutMs,
    int replicationFactor,
    int minInsyncReplicas,
    boolean toLeaders) {

  static final Set<String> KNOWN =
      Set.of(
          "url",
          "topic",
          "partitions",
          "records",
          "record-size",
          "batch",
          "concurrency",
          "acks",
          "format",
          "warmup-records",
          "request-timeout-ms",
          "replication-factor",
          "min-insync-replicas",
          "via-url");

  static final String USAGE =
      """
      Usage: bench produce [options]
        Creates the topic if missing, then sends batches round-robin over its partitions with
        POST /topics/{topic}/partitions/{p}, a bounded number of requests in flight.
        --url URL                 broker base URL                      (default http://127.0.0.1:8081)
        --topic NAME              topic                                (default bench)
        --partitions N            partitions, used when creating it    (default 3)
        --records N               measured records, after warm-up      (default 1000000; 100k, 2m accepted)
        --record-size BYTES       value payload size per record        (default 100)
        --batch N                 records per request                  (default 500)
        --concurrency N           requests in flight                   (default 8)
        --acks 0|1|all            acks query parameter                 (default all)
        --format binary|json      binary: base64 values; json: a JSON string of record-size chars (default binary)
        --warmup-records N        records sent first and not measured  (default 100000)
        --request-timeout-ms MS   a request slower than this is an error, and the run gives up when
                                  requests keep failing and none is acknowledged for this long (default 30000)
        --replication-factor N    replicas, used when creating it      (default 1)
        --min-insync-replicas N   min.insync.replicas when creating it (default 1)
        --via-url true|false      send every batch to --url, which forwards it to the partition's leader
                                  (default false: each batch goes straight to its leader, as Kafka clients do;
                                  after a failed request the leaders are looked up again, so a failover is followed)
      """;

  static ProduceOptions parse(Args args) {
    ProduceOptions o =
        new ProduceOptions(
            BenchUrls.baseUrl(args.string("url", "http://127.0.0.1:8081")),
            BenchUrls.topic(args.string("topic", "bench")),
            args.intInRange("partitions", 3, 1, 10_000),
            args.longInRange("records", 1_000_000, 1, Long.MAX_VALUE / 2),
            args.intInRange("record-size", 100, 1, 10 * 1024 * 1024),
            args.intInRange("batch", 500, 1, 100_000),
            args.intInRange("concurrency", 8, 1, 1_024),
            args.oneOf("acks", "all", Set.of("0", "1", "all")),
            PayloadFormat.of(args.oneOf("format", "binary", Set.of("binary", "json"))),
            args.longInRange("warmup-records", 100_000, 0, Long.MAX_VALUE / 2),
            args.longInRange("request-timeout-ms", 30_000, 1, 3_600_000),
            args.intInRange("replication-factor", 1, 1, 100),
            args.intInRange("min-insync-replicas", 1, 1, 100),
            !Boolean.parseBoolean(args.oneOf("via-url", "false", Set.of("true", "false"))));
    if ((long) o.recordSizeBytes * o.batchRecords > 512L * 1024 * 1024) {
      throw new Args.UsageException("--batch x --record-size must stay under 512 MiB per request");
    }
    return o;
  }
}
