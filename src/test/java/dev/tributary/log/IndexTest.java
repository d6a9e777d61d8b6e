package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexTest {
  @TempDir Path dir;

  OffsetIndex offsetIndex(int maxBytes) throws IOException {
    return new OffsetIndex(dir.resolve("00000000000000000100.index"), 100, maxBytes);
  }

  @Test
  void emptyOffsetIndexPointsAtTheSegmentStart() throws IOException {
    try (OffsetIndex index = offsetIndex(1024)) {
      assertThat(index.lookup(100)).isEqualTo(new OffsetIndex.OffsetPosition(100, 0));
      assertThat(index.lookup(5000)).isEqualTo(new OffsetIndex.OffsetPosition(100, 0));
      assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.OffsetPosition(100, 0));
    }
  }

  @Test
  void offsetIndexLookupFindsTheLargestEntryAtOrBelowTheTarget() throws IOException {
    try (OffsetIndex index = offsetIndex(1024)) {
      index.append(110, 400);
      index.append(120, 800);
      index.append(130, 1200);

      assertThat(index.lookup(100).position()).isZero(); // before the first entry
      assertThat(index.lookup(109).position()).isZero();
      assertThat(index.lookup(110).position()).isEqualTo(400); // first entry exactly
      assertThat(index.lookup(125))
          .isEqualTo(new OffsetIndex.OffsetPosition(120, 800)); // between entries
      assertThat(index.lookup(130).position()).isEqualTo(1200); // last entry exactly
      assertThat(index.lookup(Long.MAX_VALUE).position()).isEqualTo(1200); // past the last
    }
  }

  @Test
  void offsetIndexCeilingEntryFindsTheSmallestEntryAtOrAboveTheTarget() throws IOException {
    try (OffsetIndex index = offsetIndex(1024)) {
      assertThat(index.ceilingEntry(100)).isNull(); // empty
      index.append(110, 400);
      index.append(120, 800);

      assertThat(index.ceilingEntry(0)).isEqualTo(new OffsetIndex.OffsetPosition(110, 400));
      assertThat(index.ceilingEntry(110)).isEqualTo(new OffsetIndex.OffsetPosition(110, 400));
      assertThat(index.ceilingEntry(111)).isEqualTo(new OffsetIndex.OffsetPosition(120, 800));
      assertThat(index.ceilingEntry(121)).isNull();
      assertThat(index.ceilingEntry(Long.MAX_VALUE)).isNull();
    }
  }

  @Test
  void offsetIndexLookupByOffsetAndPositionHonoursBothBounds() throws IOException {
    try (OffsetIndex index = offsetIndex(1024)) {
      index.append(110, 400);
      index.append(120, 800);
      index.append(130, 1200);

      assertThat(index.lookup(125, 5000)).isEqualTo(new OffsetIndex.OffsetPosition(120, 800));
      assertThat(index.lookup(Long.MAX_VALUE, 1199))
          .isEqualTo(new OffsetIndex.OffsetPosition(120, 800));
      assertThat(index.lookup(Long.MAX_VALUE, 1200).position()).isEqualTo(1200);
      assertThat(index.lookup(115, 1200).position()).isEqualTo(400); // the offset bound decides
      assertThat(index.lookup(130, 500).position()).isEqualTo(400); // the position bound decides
      assertThat(index.lookup(109, 5000)).isEqualTo(new OffsetIndex.OffsetPosition(100, 0));
      assertThat(index.lookup(130, 399)).isEqualTo(new OffsetIndex.OffsetPosition(100, 0));
    }
  }

  @Test
  void offsetIndexRejectsBackwardsAppendsAndReportsFull() throws IOException {
    try (OffsetIndex index = offsetIndex(16)) {
      index.append(110, 400);
      assertThatThrownBy(() -> index.append(110, 500)).isInstanceOf(InvalidOffsetException.class);
      assertThatThrownBy(() -> index.append(111, 400)).isInstanceOf(InvalidOffsetException.class);
      assertThat(index.isFull()).isFalse();
      index.append(120, 800);
      assertThat(index.isFull()).isTrue();
    }
  }

  @Test
  void offsetIndexTruncatesAndSurvivesAReopen() throws IOException {
    try (OffsetIndex index = offsetIndex(1024)) {
      for (int i = 1; i <= 100; i++) {
        index.append(100 + 10L * i, 100 * i);
      }
      index.truncateTo(505); // keeps entries for offsets < 505: 110 .. 500
      assertThat(index.lastEntry().offset()).isEqualTo(500);
      index.truncateTo(500);
      assertThat(index.lastEntry().offset()).isEqualTo(490);
    }
    assertThat(Files.size(dir.resolve("00000000000000000100.index"))).isEqualTo(39 * 8);
    try (OffsetIndex reopened = offsetIndex(1024)) {
      reopened.sanityCheck(1_000_000);
      assertThat(reopened.lookup(255)).isEqualTo(new OffsetIndex.OffsetPosition(250, 1500));
      assertThatThrownBy(() -> reopened.sanityCheck(3000))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void sanityCheckRejectsAPartialEntryAndUnorderedKeys() throws IOException {
    Path file = dir.resolve("00000000000000000100.index");
    try (OffsetIndex index = offsetIndex(1024)) {
      index.append(110, 400);
    }
    Files.write(file, new byte[] {0, 0}, StandardOpenOption.APPEND);
    try (OffsetIndex index = offsetIndex(1024)) {
      assertThatThrownBy(() -> index.sanityCheck(1000)).hasMessageContaining("not a multiple");
    }
    Files.write(file, new byte[] {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5});
    try (OffsetIndex index = offsetIndex(1024)) {
      assertThatThrownBy(() -> index.sanityCheck(1000)).hasMessageContaining("not increasing");
    }
  }

  @Test
  void timeIndexKeepsOnlyGrowingTimestampsAndLooksUpTheLargestAtOrBelow() throws IOException {
    try (TimeIndex index =
        new TimeIndex(dir.resolve("00000000000000000100.timeindex"), 100, 1200)) {
      assertThat(index.lookup(5)).isEqualTo(new TimeIndex.TimestampOffset(-1, 100));
      index.maybeAppend(1000, 100);
      index.maybeAppend(1000, 110); // not larger: ignored
      index.maybeAppend(900, 115); // smaller: ignored
      index.maybeAppend(2000, 120);
      index.maybeAppend(3000, 130);

      assertThat(index.entries()).isEqualTo(3);
      assertThat(index.lookup(999)).isEqualTo(new TimeIndex.TimestampOffset(-1, 100));
      assertThat(index.lookup(1000).offset()).isEqualTo(100);
      assertThat(index.lookup(2500).offset()).isEqualTo(120);
      assertThat(index.lookup(Long.MAX_VALUE).offset()).isEqualTo(130);
      assertThatThrownBy(() -> index.maybeAppend(4000, 125))
          .isInstanceOf(InvalidOffsetException.class);

      index.truncateTo(130);
      assertThat(index.lastEntry()).isEqualTo(new TimeIndex.TimestampOffset(2000, 120));
      index.truncateTo(0);
      assertThat(index.entries()).isZero();
    }
  }
}
