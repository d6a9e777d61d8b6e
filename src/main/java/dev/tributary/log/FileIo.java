package dev.tributary.log;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Small file helpers: positional reads and writes that loop until done, directory fsync, recursive
 * delete.
 */
final class FileIo {
  private FileIo() {}

  /**
   * Opens a file channel; every file the log writes is opened here, so that {@link DiskFaults} can
   * make its disk fail in tests.
   */
  static FileChannel open(Path file, java.nio.file.OpenOption... options) throws IOException {
    return DiskFaults.open(file, options);
  }

  /**
   * Replaces {@code file} with {@code text} atomically: a fsynced {@code .tmp} sibling renamed over
   * it with ATOMIC_MOVE, then the directory fsynced, so a crash leaves the old or the new file,
   * never a torn one.
   */
  static void writeAtomically(Path file, String text) throws IOException {
    writeAtomically(file, ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  /** As {@link #writeAtomically(Path, String)}, for {@code bytes} (its remaining bytes). */
  static void writeAtomically(Path file, ByteBuffer bytes) throws IOException {
    writeAtomically(file, bytes, true);
  }

  /**
   * As {@link #writeAtomically(Path, ByteBuffer)}; without {@code durable} nothing is fsynced, so
   * after a power loss the file may be missing, empty or torn (for files that carry a checksum and
   * can be rebuilt, written where an fsync would cost too much).
   */
  static void writeAtomically(Path file, ByteBuffer bytes, boolean durable) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel channel =
        open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      if (durable) {
        channel.force(true);
      }
    }
    Files.move(
        tmp,
        file,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    if (durable) {
      fsyncDirectory(file.getParent());
    }
  }

  /**
   * Reads {@code length} bytes at {@code position}; fewer only if the file ends first (the buffer
   * is then short).
   */
  static ByteBuffer read(FileChannel channel, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position + buffer.position());
      if (n < 0) {
        break;
      }
    }
    return buffer.flip();
  }

  /** Like {@link #read} but throws when the file ends first. */
  static ByteBuffer readFully(FileChannel channel, long position, int length) throws IOException {
    ByteBuffer buffer = read(channel, position, length);
    if (buffer.remaining() != length) {
      throw new EOFException(
          "expected "
              + length
              + " bytes at "
              + position
              + ", file ended after "
              + buffer.remaining());
    }
    return buffer;
  }

  static void writeFully(FileChannel channel, long position, ByteBuffer source) throws IOException {
    ByteBuffer view = source.duplicate();
    long at = position;
    while (view.hasRemaining()) {
      at += channel.write(view, at);
    }
  }

  /** Makes a directory's entries (created, renamed, deleted files) durable. */
  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel channel = open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
