package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.LogConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Controller logic for cluster membership and liveness (Kafka's ClusterControlManager, plus the
 * fencing half of its ReplicationControlManager): validates a broker's registration or heartbeat
 * against the image and <em>computes</em> the records that carry it out; it changes no metadata
 * itself. Its only state is the soft {@link BrokerHeartbeatManager} of the active controller, which
 * heartbeats and registrations touch.
 *
 * <p>A broker's registration state ({@link BrokerState}) and its transitions:
 *
 * <pre>
 * from              event                                        to                records
 * UNREGISTERED      register(incarnation)                        FENCED (new)      RegisterBroker
 * UNREGISTERED      heartbeat                                    UNREGISTERED      error BROKER_ID_NOT_REGISTERED
 * FENCED            heartbeat, metadata offset &lt; broker epoch    FENCED            none (still catching up)
 * FENCED            heartbeat, metadata offset &gt;= broker epoch   UNFENCED          BrokerUnfenced, then PartitionChange:
 *                                                                                    it leads the offline partitions
 *                                                                                    whose ISR holds it (epochs + 1)
 * UNFENCED          heartbeat                                    UNFENCED          none
 * UNFENCED          heartbeat, log directory offline             FENCED            PartitionChange as on fencing, then
 *                                                                                    BrokerFenced (its replicas are offline:
 *                                                                                    docs/adr/0015-offline-log-dir.md)
 * FENCED            heartbeat, log directory offline             FENCED            none (never unfenced while offline)
 * UNFENCED          session expired (fenceStaleBrokers)          FENCED            PartitionChange: leadership moves to
 *                                                                                    the first unfenced ISR member, or
 *                                                                                    goes offline (-1); it leaves ISRs
 *                                                                                    unless it is the last member;
 *                                                                                    then BrokerFenced
 * FENCED, UNFENCED  register(same incarnation)                   unchanged         none (an idempotent retry)
 * FENCED, UNFENCED  register(new incarnation)                    FENCED (new)      PartitionChange as on fencing (the
 *                                                                                    old process is gone), then
 *                                                                                    RegisterBroker
 * FENCED, UNFENCED  heartbeat with another broker epoch          unchanged         error STALE_BROKER_EPOCH
 * any               register with invalid listeners or rack      unchanged         error INVALID_REGISTRATION
 * </pre>
 *
 * A new registration and a fenced one are the same state in the image ({@code fenced == true});
 * only how it was reached differs. The broker epoch is the offset of the registration's record, so
 * a new incarnation always has a larger one, and a late BrokerFenced/BrokerUnfenced about an old
 * epoch replays as a no-op.
 *
 * <p>Ordering within a batch: partition changes come <em>before</em> BrokerFenced and
 * RegisterBroker, and <em>after</em> BrokerUnfenced, so the image satisfies "a fenced broker leads
 * nothing" after every single record, not only after the whole batch.
 *
 * <p>Leader election (Kafka's, without KIP-966's ELR): the first replica in replica order that is
 * in the ISR and on an unfenced broker; if there is none the partition goes offline, unless its
 * topic sets {@code unclean.leader.election.enable}, when the first live replica leads even though
 * it may lack acknowledged records. A controlled shutdown ({@link #controlledShutdown}) moves
 * leadership and ISR membership away first, exactly as fencing does. {@link
 * #preferredLeaderChanges} gives leadership back to each partition's first replica once it is in
 * sync again ({@code auto.leader.rebalance.enable}).
 *
 * <p>Concurrency: not thread-safe; the {@link Controller} calls it under its lock.
 */
public final class ClusterControl {
  /** Where a broker id stands in the image. */
  public enum BrokerState {
    /** No registration: heartbeats are refused; registering leads to {@link #FENCED}. */
    UNREGISTERED,
    /**
     * Registered but may not lead or receive new replicas: newly registered (until its first
     * caught-up heartbeat) or missed its session. A caught-up heartbeat leads to {@link #UNFENCED};
     * a new incarnation stays here with a new epoch.
     */
    FENCED,
    /**
     * Alive: may lead and receive replicas. A missed session or a new incarnation leads to {@link
     * #FENCED}.
     */
    UNFENCED;

    public static BrokerState of(MetadataImage image, int brokerId) {
      return image.broker(brokerId).map(b -> b.fenced() ? FENCED : UNFENCED).orElse(UNREGISTERED);
    }
  }

  /**
   * What a heartbeat computed: the records to commit (possibly none) and whether the broker is
   * still fenced once they are committed.
   */
  public record HeartbeatResult(List<MetadataRecord> records, boolean fenced) {
    public HeartbeatResult {
      records = List.copyOf(records);
    }
  }

  private static final Pattern LISTENER_NAME = Pattern.compile("[A-Z0-9_]+");

  /** A DNS name (RFC 1123 labels, so also an IPv4 address) or an IPv6 literal, maybe bracketed. */
  private static final Pattern LISTENER_HOST =
      Pattern.compile(
          "[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\\.?"
              + "|\\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*]?");

  /** A DNS name has at most 253; the limit keeps a record well within what the serde encodes. */
  private static final int MAX_LISTENER_FIELD_LENGTH = 255;

  /** As for listener fields: a rack name is a label, and the serde must encode it. */
  static final int MAX_RACK_LENGTH = 255;

  private final BrokerHeartbeatManager heartbeats;

  public ClusterControl(BrokerHeartbeatManager heartbeats) {
    this.heartbeats = heartbeats;
  }

  public BrokerHeartbeatManager heartbeats() {
    return heartbeats;
  }

  /**
   * As {@link #register(MetadataImage, int, Uuid, List, String, long)}, for a broker without a
   * rack.
   */
  public List<MetadataRecord> register(
      MetadataImage image,
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      long nowMs) {
    return register(image, brokerId, incarnationId, listeners, null, nowMs);
  }

  /**
   * Records that register {@code incarnationId} as broker {@code brokerId}, advertising {@code
   * listeners}, on {@code rack} (null: none): none if that incarnation is already the registered
   * one (a retried request; a rack changes only with a restart, which is a new incarnation). A new
   * incarnation replaces the old registration, and since the old process is gone, its leaderships
   * and ISR memberships are given up first, exactly as if it had been fenced.
   *
   * @throws InvalidRegistrationException unless the listeners are valid (see {@link
   *     #checkListeners}) and the rack, if any, is 1–{@value #MAX_RACK_LENGTH} characters, not all
   *     white space, without control characters
   */
  public List<MetadataRecord> register(
      MetadataImage image,
      int brokerId,
      Uuid incarnationId,
      List<AdvertisedListener> listeners,
      String rack,
      long nowMs) {
    if (brokerId < 0) {
      throw new InvalidRequestException("Broker id must not be negative, got " + brokerId);
    }
    checkListeners(brokerId, listeners);
    checkRack(brokerId, rack);
    heartbeats.touch(brokerId, nowMs);
    BrokerImage current = image.brokers().get(brokerId);
    if (current != null && current.incarnationId().equals(incarnationId)) {
      return List.of();
    }
    List<MetadataRecord> records = new ArrayList<>();
    if (current != null) {
      records.addAll(partitionChangesWithout(image, Set.of(brokerId)));
    }
    records.add(new MetadataRecord.RegisterBroker(brokerId, incarnationId, listeners, rack));
    return records;
  }

  /**
   * Refuses a rack no placement can use: blank (an unset {@code broker.rack} is null, not empty),
   * too long to encode comfortably, or with control characters (it is shown in logs and the
   * timeline).
   */
  static void checkRack(int brokerId, String rack) {
    if (rack == null) {
      return;
    }
    String problem =
        rack.isBlank()
            ? "it is blank"
            : rack.length() > MAX_RACK_LENGTH
                ? "it has more than " + MAX_RACK_LENGTH + " characters"
                : rack.chars().anyMatch(Character::isISOControl)
                    ? "it has control characters"
                    : null;
    if (problem != null) {
      String shown = rack.length() > MAX_RACK_LENGTH ? "" : " '" + rack + "'";
      throw new InvalidRegistrationException(
          "Broker " + brokerId + " registered an invalid rack" + shown + ": " + problem);
    }
  }

  /**
   * Refuses listeners a registration may not carry (Kafka's INVALID_REGISTRATION): none named
   * {@value AdvertisedListener#HTTP} (every broker routes HTTP through it), a name that is not
   * upper case letters, digits and {@code _} (Kafka's normalised listener names), a name used
   * twice, an empty host or one that is neither a DNS name nor an IP address, a name or host over
   * 255 characters, or a port outside 1–65535.
   */
  static void checkListeners(int brokerId, List<AdvertisedListener> listeners) {
    Set<String> names = new HashSet<>();
    for (AdvertisedListener listener : listeners) {
      String problem = problemWith(listener, names);
      if (problem != null) {
        throw new InvalidRegistrationException(
            "Broker " + brokerId + " registered an invalid listener " + listener + ": " + problem);
      }
    }
    if (!names.contains(AdvertisedListener.HTTP)) {
      throw new InvalidRegistrationException(
          "Broker "
              + brokerId
              + " registered no "
              + AdvertisedListener.HTTP
              + " listener (it has "
              + listeners
              + "): other brokers reach it over HTTP");
    }
  }

  /** What is wrong with {@code listener}, or null; adds its name to {@code namesSoFar}. */
  private static String problemWith(AdvertisedListener listener, Set<String> namesSoFar) {
    if (!LISTENER_NAME.matcher(listener.name()).matches()) {
      return "a listener name must be upper case letters, digits and _";
    }
    if (listener.name().length() > MAX_LISTENER_FIELD_LENGTH
        || listener.host().length() > MAX_LISTENER_FIELD_LENGTH) {
      return "its name and host may have at most " + MAX_LISTENER_FIELD_LENGTH + " characters";
    }
    if (!namesSoFar.add(listener.name())) {
      return "two listeners are named " + listener.name();
    }
    if (listener.host().isBlank()) {
      return "its host is empty";
    }
    if (!LISTENER_HOST.matcher(listener.host()).matches()) {
      // other brokers and clients must be able to put it in a URL (java.net.http refuses a '_')
      return "its host is not a DNS name (letters, digits, '-' and '.') or an IP address";
    }
    if (listener.port() < 1 || listener.port() > 65_535) {
      return "its port must be 1 to 65535";
    }
    return null;
  }

  /**
   * Answers a heartbeat from registration {@code brokerEpoch} of {@code brokerId}, which has
   * replayed the metadata log up to {@code brokerMetadataOffset}. A fenced broker is unfenced once
   * it has caught up at least to its own registration (so it knows the metadata it must act on),
   * and then leads the offline partitions whose ISR holds it.
   *
   * @throws BrokerNotRegisteredException if the broker id has no registration
   * @throws StaleBrokerEpochException if {@code brokerEpoch} is not the current registration's
   */
  public HeartbeatResult heartbeat(
      MetadataImage image, int brokerId, long brokerEpoch, long brokerMetadataOffset, long nowMs) {
    return heartbeat(image, brokerId, brokerEpoch, brokerMetadataOffset, false, nowMs);
  }

  /**
   * As {@link #heartbeat(MetadataImage, int, long, long, long)}, from a broker that says whether
   * its log directory is offline (Kafka's BrokerHeartbeat offlineLogDirs). A broker with its only
   * log directory offline hosts no usable replica: it is fenced at once, so that leadership moves
   * to the other in-sync replicas and it leaves every ISR (as on any fencing), and it stays fenced
   * for as long as it reports the directory offline. It keeps its session: it is alive and serves
   * reads through other brokers' leaders until it restarts.
   */
  public HeartbeatResult heartbeat(
      MetadataImage image,
      int brokerId,
      long brokerEpoch,
      long brokerMetadataOffset,
      boolean logDirOffline,
      long nowMs) {
    BrokerImage broker = image.brokers().get(brokerId);
    if (broker == null) {
      throw new BrokerNotRegisteredException(
          "Broker " + brokerId + " is not registered; register first");
    }
    if (broker.brokerEpoch() != brokerEpoch) {
      throw new StaleBrokerEpochException(
          "Broker "
              + brokerId
              + " sent broker epoch "
              + brokerEpoch
              + " but its current registration has epoch "
              + broker.brokerEpoch());
    }
    heartbeats.touch(brokerId, nowMs);
    if (logDirOffline) {
      return new HeartbeatResult(
          broker.fenced() ? List.of() : fenceBroker(image, brokerId, brokerEpoch), true);
    }
    if (!broker.fenced()) {
      return new HeartbeatResult(List.of(), false);
    }
    if (brokerMetadataOffset < broker.brokerEpoch()) {
      return new HeartbeatResult(List.of(), true);
    }
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new MetadataRecord.BrokerUnfenced(brokerId, brokerEpoch));
    records.addAll(partitionChangesOnUnfence(image, brokerId));
    return new HeartbeatResult(records, false);
  }

  /**
   * Records that fence every unfenced broker whose session has expired at {@code nowMs}, and move
   * or take offline what they led. An unfenced broker this controller has no contact on record for
   * gets a fresh session from {@code nowMs} instead (it cannot have been silent for longer than
   * this controller knows of it).
   */
  public List<MetadataRecord> fenceStaleBrokers(MetadataImage image, long nowMs) {
    Set<Integer> stale = new TreeSet<>();
    for (int brokerId : image.unfencedBrokerIds()) {
      if (!heartbeats.tracks(brokerId)) {
        heartbeats.touch(brokerId, nowMs);
      } else if (heartbeats.isStale(brokerId, nowMs)) {
        stale.add(brokerId);
      }
    }
    if (stale.isEmpty()) {
      return List.of();
    }
    List<MetadataRecord> records = new ArrayList<>(partitionChangesWithout(image, stale));
    for (int brokerId : stale) {
      records.add(
          new MetadataRecord.BrokerFenced(brokerId, image.brokers().get(brokerId).brokerEpoch()));
    }
    return records;
  }

  /**
   * Records that fence registration {@code brokerEpoch} of {@code brokerId} at once, moving what it
   * led: for a broker shutting down cleanly (it stopped heartbeating first), or one found dead
   * before its session expired. None if that registration is already fenced.
   *
   * @throws StaleBrokerEpochException if {@code brokerEpoch} is not the broker's current
   *     registration
   */
  public List<MetadataRecord> fenceBroker(MetadataImage image, int brokerId, long brokerEpoch) {
    BrokerImage broker = image.brokers().get(brokerId);
    if (broker == null || broker.brokerEpoch() != brokerEpoch) {
      throw new StaleBrokerEpochException(
          "Broker "
              + brokerId
              + " epoch "
              + brokerEpoch
              + " is not the current registration"
              + (broker == null ? "" : " (" + broker.brokerEpoch() + ")"));
    }
    if (broker.fenced()) {
      return List.of();
    }
    List<MetadataRecord> records =
        new ArrayList<>(partitionChangesWithout(image, Set.of(brokerId)));
    records.add(new MetadataRecord.BrokerFenced(brokerId, brokerEpoch));
    return records;
  }

  /**
   * Partition changes that hand leadership back to each partition's preferred (first) replica where
   * it is in the ISR, unfenced and not leading (Kafka's preferred replica election), so leaders
   * stay spread after failovers.
   */
  public static List<MetadataRecord> preferredLeaderChanges(MetadataImage image) {
    return PreferredLeaderElection.elect(image, null).records();
  }

  /**
   * The earliest session deadline of an unfenced broker in {@code image}, or {@link Long#MAX_VALUE}
   * if none.
   */
  public long nextDeadlineMs(MetadataImage image) {
    return heartbeats.nextDeadlineMs(image.unfencedBrokerIds());
  }

  /** A newly active controller gives every registered broker a full session from {@code nowMs}. */
  public void onBecomeActive(MetadataImage image, long nowMs) {
    heartbeats.resetAll(image.brokers().keySet(), nowMs);
  }

  /**
   * Partition changes for {@code leaving} brokers going away: each partition one of them leads gets
   * the first unfenced, staying ISR member (in replica order) as leader, or goes offline (-1) with
   * leader epoch + 1; they leave every ISR, except that an ISR never becomes empty (it keeps the
   * old leader, or else its first member: the replica with the most recent data, which must come
   * back before the partition can). Partition epoch + 1 on any change.
   */
  static List<MetadataRecord> partitionChangesWithout(MetadataImage image, Set<Integer> leaving) {
    Set<Integer> eligible = new HashSet<>(image.unfencedBrokerIds());
    eligible.removeAll(leaving);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (PartitionImage p : topic.partitions().values()) {
        List<Integer> isr = p.isr().stream().filter(id -> !leaving.contains(id)).toList();
        if (isr.isEmpty()) {
          isr = List.of(p.leader() != -1 ? p.leader() : p.isr().get(0));
        }
        int leader = p.leader();
        if (leader != -1 && leaving.contains(leader)) {
          leader = electLeader(p.replicas(), isr, eligible);
          if (leader == -1 && uncleanElection(topic)) {
            List<Integer> candidates = uncleanCandidates(p);
            leader = electLeader(candidates, candidates, eligible);
            if (leader != -1) {
              isr =
                  List.of(leader); // it may lack acknowledged records: the topic chose availability
            }
          }
        }
        if (leader != p.leader() || !isr.equals(p.isr())) {
          changes.add(
              ReassignmentControl.completeIfCaughtUp(
                  image, change(topic.topicId(), p, isr, leader)));
        }
      }
    }
    return changes;
  }

  /**
   * Partition changes for {@code brokerId} being unfenced: offline partitions whose ISR holds it
   * get a leader.
   */
  static List<MetadataRecord> partitionChangesOnUnfence(MetadataImage image, int brokerId) {
    Set<Integer> eligible = new HashSet<>(image.unfencedBrokerIds());
    eligible.add(brokerId);
    List<MetadataRecord> changes = new ArrayList<>();
    for (TopicImage topic : image.topicsByName().values()) {
      for (PartitionImage p : topic.partitions().values()) {
        if (p.leader() == -1 && p.isr().contains(brokerId)) {
          changes.add(
              ReassignmentControl.completeIfCaughtUp(
                  image,
                  change(
                      topic.topicId(), p, p.isr(), electLeader(p.replicas(), p.isr(), eligible))));
        } else if (p.leader() == -1
            && uncleanCandidates(p).contains(brokerId)
            && uncleanElection(topic)) {
          changes.add(
              ReassignmentControl.completeIfCaughtUp(
                  image, change(topic.topicId(), p, List.of(brokerId), brokerId)));
        }
      }
    }
    return changes;
  }

  /**
   * Who may lead by unclean election, best first: the replicas the partition had before any move
   * (they hold the most), then the ones still being added (they may hold nothing yet).
   */
  private static List<Integer> uncleanCandidates(PartitionImage p) {
    List<Integer> candidates = new ArrayList<>(p.originalReplicas());
    candidates.addAll(p.addingReplicas());
    return candidates;
  }

  private static boolean uncleanElection(TopicImage topic) {
    return Boolean.parseBoolean(
        topic.configs().getOrDefault(LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE, "false"));
  }

  /**
   * The first replica, in replica order, that is in {@code isr} and {@code eligible}; -1 if none
   * (offline).
   */
  static int electLeader(List<Integer> replicas, List<Integer> isr, Set<Integer> eligible) {
    for (int replica : replicas) {
      if (isr.contains(replica) && eligible.contains(replica)) {
        return replica;
      }
    }
    return -1;
  }

  static MetadataRecord.PartitionChange change(
      Uuid topicId, PartitionImage p, List<Integer> isr, int leader) {
    int leaderEpoch = leader != p.leader() ? p.leaderEpoch() + 1 : p.leaderEpoch();
    return p.change(topicId, isr, leader, leaderEpoch, p.partitionEpoch() + 1);
  }
}
