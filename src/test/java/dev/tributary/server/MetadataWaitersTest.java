package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.metadata.MetadataImage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** {@link MetadataWaiters}: futures completed by applied images, expiring on a manual clock. */
class MetadataWaitersTest {
  private final ManualClock clock = new ManualClock();
  private final MetadataWaiters waiters = new MetadataWaiters(clock, 1);

  private static MetadataImage at(long offset) {
    return MetadataImage.EMPTY.withLastOffset(offset);
  }

  @Test
  void aWaiterCompletesWithTheFirstImageAtOrAfterItsOffset() {
    waiters.onApplied(at(3));
    CompletableFuture<MetadataImage> waiting = waiters.awaitOffset(7, 10_000);

    waiters.onApplied(at(6));
    assertThat(waiting).isNotDone();
    MetadataImage seventh = at(7);
    waiters.onApplied(seventh);
    waiters.onApplied(at(8));

    assertThat(waiting).isCompletedWithValue(seventh);
    assertThat(clock.pendingTasks()).as("its deadline was cancelled").isZero();
  }

  @Test
  void aWaiterAlreadySatisfiedCompletesAtOnceWithTheCurrentImage() {
    MetadataImage current = at(5);
    waiters.onApplied(current);

    assertThat(waiters.awaitOffset(5, 10_000)).isCompletedWithValue(current);
    assertThat(waiters.awaitOffset(2, 10_000)).isCompletedWithValue(current);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void aConditionIsCheckedAgainstEachImageInTurn() {
    Predicate<MetadataImage> even = image -> image.lastOffset() > 0 && image.lastOffset() % 2 == 0;
    CompletableFuture<MetadataImage> waiting = waiters.await(even, 10_000);

    waiters.onApplied(at(1));
    assertThat(waiting).isNotDone();
    waiters.onApplied(at(4));

    assertThat(waiting.join().lastOffset()).isEqualTo(4);
  }

  @Test
  void aWaiterNotSatisfiedInTimeFailsWithBrokerNotAvailable() {
    CompletableFuture<MetadataImage> waiting = waiters.awaitOffset(7, 10_000);

    clock.advance(9_999);
    assertThat(waiting).isNotDone();
    clock.advance(1);

    assertThatThrownBy(waiting::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(BrokerNotAvailableException.class)
        .hasMessageContaining("broker 1 has not seen it yet");
    waiters.onApplied(at(7));
    assertThat(waiting).as("an expired waiter stays failed").isCompletedExceptionally();
  }

  @Test
  void anImageAppliedBetweenTheCheckAndTheRegistrationIsNotMissed() {
    MetadataImage arrived = at(7);
    AtomicBoolean firstCheck = new AtomicBoolean(true);
    Predicate<MetadataImage> reachedSeven =
        image -> {
          if (firstCheck.getAndSet(false)) {
            // The metadata thread applies the image right after this check saw the old one, and
            // before the waiter is registered: nobody is waiting yet.
            waiters.onApplied(arrived);
            return false;
          }
          return image.lastOffset() >= 7;
        };

    CompletableFuture<MetadataImage> waiting = waiters.await(reachedSeven, 10_000);

    assertThat(waiting).isCompletedWithValue(arrived);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void anOlderImageNeverReplacesTheLatest() {
    waiters.onApplied(at(9));
    waiters.onApplied(at(4));

    assertThat(waiters.awaitOffset(9, 10_000)).isCompleted();
  }
}
