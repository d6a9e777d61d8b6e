package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.tributary.common.Uuid;
import dev.tributary.e2e.TestPorts;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * A metadata quorum of in-process members on loopback, each with its own directory under {@code
 * root}: start, stop and restart members by broker id, and wait (bounded) for a leader or for equal
 * images.
 */
final class QuorumFixture implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(15);

  static {
    // Ratis logs a great deal at INFO; the application sets the same level.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.apache.ratis"))
        .setLevel(Level.WARN);
  }

  private final Path root;
  final Map<Integer, InetSocketAddress> voters;
  final Map<Integer, InetSocketAddress> listeners;
  private final RatisQuorumOptions options;
  private final Map<Integer, RatisMetadataQuorum> running = new TreeMap<>();
  private final Random random = new Random(42);

  private QuorumFixture(
      Path root,
      Map<Integer, InetSocketAddress> voters,
      Map<Integer, InetSocketAddress> listeners,
      RatisQuorumOptions options) {
    this.root = root;
    this.voters = voters;
    this.listeners = listeners;
    this.options = options;
  }

  /** Voters are brokers 1..voterCount, listeners the ids after them. Nothing is started. */
  static QuorumFixture create(
      Path root, int voterCount, int listenerCount, RatisQuorumOptions options) {
    List<Integer> ports = freePorts(voterCount + listenerCount);
    Map<Integer, InetSocketAddress> voters = new TreeMap<>();
    Map<Integer, InetSocketAddress> listeners = new TreeMap<>();
    for (int i = 0; i < ports.size(); i++) {
      (i < voterCount ? voters : listeners)
          .put(i + 1, new InetSocketAddress("127.0.0.1", ports.get(i)));
    }
    return new QuorumFixture(root, voters, listeners, options);
  }

  /** Not port 0: see {@link TestPorts} for why ephemeral ports collide. */
  private static List<Integer> freePorts(int count) {
    return TestPorts.next(count);
  }

  /**
   * Gives the next broker id a listener's address, as {@code ./tributary add-broker} does for a
   * running cluster; members started before keep the listener list they started with. Not started.
   */
  int addListener() {
    int id = voters.size() + listeners.size() + 1;
    listeners.put(id, new InetSocketAddress("127.0.0.1", freePorts(1).get(0)));
    return id;
  }

  /** Starts a member with the given listener list (an older or newer static configuration). */
  RatisMetadataQuorum start(int brokerId, Map<Integer, InetSocketAddress> listenersKnown) {
    RatisMetadataQuorum quorum =
        RatisMetadataQuorum.start(brokerId, voters, listenersKnown, dir(brokerId), options);
    running.put(brokerId, quorum);
    return quorum;
  }

  Path dir(int brokerId) {
    return root.resolve("b" + brokerId);
  }

  RatisMetadataQuorum start(int brokerId) {
    RatisMetadataQuorum quorum =
        RatisMetadataQuorum.start(brokerId, voters, listeners, dir(brokerId), options);
    running.put(brokerId, quorum);
    return quorum;
  }

  QuorumFixture startAll() {
    Stream.concat(voters.keySet().stream(), listeners.keySet().stream()).forEach(this::start);
    return this;
  }

  void stop(int brokerId) {
    running.remove(brokerId).close();
  }

  /** Closes every running member at once: a Ratis server takes about a second to close. */
  void stopAll() {
    List<RatisMetadataQuorum> members = new ArrayList<>(running.values());
    running.clear();
    // Own threads, not parallelStream: the common pool has one thread on 2 cores, and Ratis uses it
    // too.
    List<Thread> closers =
        members.stream()
            .map(member -> new Thread(member::close, "close-b" + member.localBrokerId()))
            .toList();
    closers.forEach(Thread::start);
    for (Thread closer : closers) {
      try {
        closer.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  RatisMetadataQuorum member(int brokerId) {
    return running.get(brokerId);
  }

  List<RatisMetadataQuorum> members() {
    return List.copyOf(running.values());
  }

  RatisMetadataQuorum awaitLeader() {
    return await("an active controller among " + running.keySet())
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                running.values().stream()
                    .filter(RatisMetadataQuorum::isActiveController)
                    .findFirst()
                    .orElse(null),
            quorum -> quorum != null);
  }

  /** A running voter that is not {@code leader}. */
  RatisMetadataQuorum follower(RatisMetadataQuorum leader) {
    return running.values().stream()
        .filter(q -> q != leader && voters.containsKey(q.localBrokerId()))
        .findFirst()
        .orElseThrow();
  }

  /** Waits until every running member's image equals {@code expected}. */
  void awaitImages(MetadataImage expected) {
    await("every member at lastOffset " + expected.lastOffset())
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(
            () -> {
              for (RatisMetadataQuorum member : running.values()) {
                assertThat(member.image()).as(member.statusLine()).isEqualTo(expected);
              }
            });
  }

  /**
   * Commits a topic (two records) through {@code leader} and returns the image the append returned.
   */
  MetadataImage appendTopic(RatisMetadataQuorum leader, String name) {
    return leader.append(leader.image().lastOffset(), topicRecords(name));
  }

  List<MetadataRecord> topicRecords(String name) {
    Uuid id = Uuid.random(random);
    return List.of(
        new MetadataRecord.TopicCreated(id, name),
        new MetadataRecord.TopicConfigChanged(id, "retention.ms", "1000"));
  }

  /**
   * Snapshot files ({@code snapshot.<term>_<index>}, not their digests) in a member's state machine
   * directory.
   */
  long snapshotFiles(int brokerId) throws IOException {
    Path smDir =
        dir(brokerId).resolve(RatisMetadataQuorum.GROUP_ID.getUuid().toString()).resolve("sm");
    if (!Files.isDirectory(smDir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(smDir)) {
      return files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+")).count();
    }
  }

  @Override
  public void close() {
    stopAll();
  }
}
