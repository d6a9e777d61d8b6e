package dev.tributary.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A skewed host's clock: its wall clock is off by the skew, its monotonic clock is not. */
class SkewedTimeTest {
  private final ManualClock base = new ManualClock();

  @Test
  void theWallClockIsOffByTheSkewAndTheMonotonicClockIsUntouched() {
    SkewedTime skewed = new SkewedTime(base, 300_000);

    assertThat(skewed.milliseconds()).isEqualTo(base.milliseconds() + 300_000);
    assertThat(skewed.nanoseconds()).isEqualTo(base.nanoseconds());
    assertThat(skewed.monotonicMs()).isEqualTo(base.monotonicMs());
    base.advance(1_000);
    assertThat(skewed.milliseconds()).isEqualTo(base.milliseconds() + 300_000);
    assertThat(skewed.monotonicMs()).isEqualTo(base.monotonicMs());
  }

  @Test
  void settingTheSkewIsAbsoluteAJumpByTheDifference() {
    SkewedTime skewed = new SkewedTime(base, 300_000);
    long before = skewed.milliseconds();

    skewed.setSkewMs(-90_000);

    assertThat(skewed.skewMs()).isEqualTo(-90_000);
    assertThat(skewed.milliseconds()).isEqualTo(before - 390_000);
  }

  @Test
  void aSkewBeyondOneDayIsRefusedAndLeavesTheClockAlone() {
    SkewedTime skewed = new SkewedTime(base, 5);

    assertThatThrownBy(() -> skewed.setSkewMs(SkewedTime.MAX_SKEW_MS + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> skewed.setSkewMs(Long.MIN_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SkewedTime(base, -SkewedTime.MAX_SKEW_MS - 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(skewed.skewMs()).isEqualTo(5);
    skewed.setSkewMs(-SkewedTime.MAX_SKEW_MS);
    assertThat(skewed.skewMs()).isEqualTo(-SkewedTime.MAX_SKEW_MS);
  }
}
