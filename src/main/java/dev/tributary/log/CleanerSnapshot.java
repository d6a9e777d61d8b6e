package dev.tributary.log;

import java.util.List;

/**
 * What the cleaner needs from a log, read together under its lock ({@link LogCleaning#snapshot}):
 * the segments (the last is the active one), offsets and config, consistent with each other. The
 * cleaner reads the segments' files afterwards without the lock.
 */
record CleanerSnapshot(
    List<LogSegment> segments,
    long logStartOffset,
    long logEndOffset,
    long boundOffset,
    long firstDirtyOffset,
    long truncationCount,
    LogConfig config) {}
