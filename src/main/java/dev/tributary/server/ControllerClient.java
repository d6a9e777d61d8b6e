package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.Truncation;
import dev.tributary.security.SecurityChange;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * This broker's way to the active controller (Kafka's controller channel manager): the one place
 * that decides whether the controller is this broker — then the call goes straight to its {@link
 * ControllerService}, no network — or another, reached over the {@link ControllerChannel} at the
 * address the {@link ControllerLocator} finds. Admin calls are asynchronous: the blocking channel
 * runs on {@code executor}, never on a request thread.
 *
 * <p>An admin call that finds no controller (none elected yet, or the one it asked answers
 * NOT_CONTROLLER: leadership moved) waits and tries again, backing off from {@value
 * #FIRST_RETRY_MS} ms to {@value #MAX_RETRY_MS} ms, for up to {@code retryForMs}, as Kafka's
 * brokers queue forwarded requests while the controller changes: a topic created just as the
 * controller's broker stops waits for the election instead of failing. Both cases are safe to
 * repeat: nothing reached a controller that acted on it. Other failures are the channel's: the
 * controller's own refusals, {@link ControllerUnreachableException} when nobody answered (not
 * repeated: the call may have been carried out). Blocking calls ({@link #call}) fail at once and
 * their callers retry as they see fit.
 */
public final class ControllerClient {
  static final long FIRST_RETRY_MS = 100;
  static final long MAX_RETRY_MS = 1_000;

  private final MetadataQuorum quorum;
  private final ControllerService local;
  private final ControllerChannel remote;
  private final ControllerLocator locator;
  private final Executor executor;
  private final Scheduler scheduler;
  private final Time time;
  private final long retryForMs;

  /**
   * @param executor runs the blocking channel calls of admin requests
   * @param scheduler and {@code time}: when to try an admin call again
   * @param retryForMs how long an admin call waits for a controller, from its first attempt
   */
  ControllerClient(
      MetadataQuorum quorum,
      ControllerService local,
      ControllerChannel remote,
      ControllerLocator locator,
      Executor executor,
      Scheduler scheduler,
      Time time,
      long retryForMs) {
    this.quorum = quorum;
    this.local = local;
    this.remote = remote;
    this.locator = locator;
    this.executor = executor;
    this.scheduler = scheduler;
    this.time = time;
    this.retryForMs = retryForMs;
  }

  /** Runs {@code call} against the active controller, here or elsewhere. Blocking. */
  <T> T call(Function<Target, T> call) {
    ControllerChannel channel = quorum.isActiveController() ? local : remote;
    ControllerChannel.Endpoint endpoint =
        locator
            .controllerEndpoint()
            .orElseThrow(
                () ->
                    new NotControllerException("No active controller is known yet; retry shortly"));
    return call.apply(new Target(channel, endpoint));
  }

  /**
   * {@link #call}, off the caller's thread, tried again while no controller takes it (see the class
   * doc). Fails as {@code supplyAsync} would: with a {@link CompletionException} around the cause.
   */
  <T> CompletableFuture<T> callAsync(Function<Target, T> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    attempt(call, result, time.monotonicMs() + retryForMs, FIRST_RETRY_MS);
    return result;
  }

  private <T> void attempt(
      Function<Target, T> call, CompletableFuture<T> result, long deadlineMs, long backoffMs) {
    try {
      executor.execute(
          () -> {
            try {
              result.complete(call(call));
            } catch (NotControllerException e) {
              if (time.monotonicMs() + backoffMs > deadlineMs) {
                result.completeExceptionally(new CompletionException(e));
                return;
              }
              try {
                scheduler.schedule(
                    backoffMs,
                    () -> attempt(call, result, deadlineMs, Math.min(2 * backoffMs, MAX_RETRY_MS)));
              } catch (RejectedExecutionException shuttingDown) {
                result.completeExceptionally(new CompletionException(e)); // no retry is coming
              }
            } catch (RuntimeException e) {
              result.completeExceptionally(new CompletionException(e));
            }
          });
    } catch (RejectedExecutionException e) { // shutting down
      result.completeExceptionally(new CompletionException(e));
    }
  }

  /** The channel to use and the controller's address, for one call. */
  record Target(ControllerChannel channel, ControllerChannel.Endpoint endpoint) {}

  public CompletableFuture<ControllerChannel.AdminResult> createTopic(
      NewTopic topic, boolean validateOnly) {
    return callAsync(t -> t.channel().createTopic(t.endpoint(), topic, validateOnly));
  }

  public CompletableFuture<ControllerChannel.AdminResult> createPartitions(
      NewPartitions request, boolean validateOnly) {
    return callAsync(t -> t.channel().createPartitions(t.endpoint(), request, validateOnly));
  }

  public CompletableFuture<ControllerChannel.AdminResult> deleteTopic(String name) {
    return callAsync(t -> t.channel().deleteTopic(t.endpoint(), name));
  }

  public CompletableFuture<ControllerChannel.AdminResult> alterBrokerConfigs(
      int brokerId, List<ConfigChange> changes, boolean validateOnly) {
    return callAsync(
        t -> t.channel().alterBrokerConfigs(t.endpoint(), brokerId, changes, validateOnly));
  }

  public CompletableFuture<ControllerChannel.AdminResult> unregisterBroker(int brokerId) {
    return callAsync(t -> t.channel().unregisterBroker(t.endpoint(), brokerId));
  }

  public CompletableFuture<ControllerChannel.AdminResult> alterConfigs(
      String name, List<ConfigChange> changes, boolean validateOnly) {
    return callAsync(t -> t.channel().alterConfigs(t.endpoint(), name, changes, validateOnly));
  }

  /** See {@link ControllerChannel#electPreferredLeaders}; {@code partitions} null: all. */
  public CompletableFuture<ControllerChannel.ElectionResult> electPreferredLeaders(
      List<TopicPartition> partitions) {
    return callAsync(t -> t.channel().electPreferredLeaders(t.endpoint(), partitions));
  }

  /** See {@link ControllerChannel#alterPartitionReassignments}. */
  public CompletableFuture<ControllerChannel.ReassignmentResult> alterPartitionReassignments(
      java.util.Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    return callAsync(t -> t.channel().alterPartitionReassignments(t.endpoint(), targets));
  }

  public CompletableFuture<ControllerChannel.AdminResult> alterSecurity(SecurityChange change) {
    return callAsync(t -> t.channel().alterSecurity(t.endpoint(), change));
  }

  /**
   * The next block of producer ids for this broker's registration {@code brokerEpoch}, off the
   * caller's thread.
   */
  public CompletableFuture<ProducerIdsBlock> allocateProducerIds(int brokerId, long brokerEpoch) {
    return callAsync(t -> t.channel().allocateProducerIds(t.endpoint(), brokerId, brokerEpoch));
  }

  /** A leader's ISR change. Blocking: the caller runs it on its own thread. */
  public ControllerChannel.AdminResult alterPartition(ControllerChannel.AlterPartition request) {
    return call(t -> t.channel().alterPartition(t.endpoint(), request));
  }

  /** Fences this broker's registration after moving its leaderships away. Blocking. */
  public ControllerChannel.AdminResult fenceBroker(int brokerId, long brokerEpoch) {
    return call(t -> t.channel().fenceBroker(t.endpoint(), brokerId, brokerEpoch));
  }

  /** A replica dropped records its leader never had, for the timeline. Blocking. */
  public void reportTruncation(Truncation truncation) {
    call(
        t -> {
          t.channel().reportTruncation(t.endpoint(), truncation);
          return null;
        });
  }

  /** A fault injected on purpose, for the timeline. Blocking. */
  public void reportFault(ControllerChannel.FaultReport fault) {
    call(
        t -> {
          t.channel().reportFault(t.endpoint(), fault);
          return null;
        });
  }

  /** {@code reporterId} could not connect to {@code brokerId}. Blocking. */
  public void reportUnreachable(int reporterId, int brokerId) {
    call(
        t -> {
          t.channel().reportUnreachable(t.endpoint(), reporterId, brokerId);
          return null;
        });
  }
}
