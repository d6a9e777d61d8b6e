package dev.tributary.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fault-injection seam of the log's file layer: tests make the disk under a directory full,
 * read-only or unable to fsync, deterministically, without root or a special file system. Every
 * file the log package opens goes through {@link FileIo#open}, which wraps the channel in a faulty
 * one when a fault is installed for a directory above the file. Production never installs one: the
 * check is one lookup in an empty map.
 *
 * <p>Concurrency: thread-safe. Faults are keyed by directory, so tests running in parallel on their
 * own temporary directories do not see each other's.
 */
public final class DiskFaults {
  /** What goes wrong under a directory. */
  public interface DiskFault {
    /**
     * How many of the {@code length} bytes of a write to {@code file} reach it before the write
     * fails with "No space left on device"; {@code length} lets the whole write through.
     */
    int writableBytes(Path file, int length);

    /** Throws to fail an fsync of {@code file} (a file or a directory). */
    void beforeForce(Path file) throws IOException;
  }

  private static final Map<Path, DiskFault> FAULTS = new ConcurrentHashMap<>();

  private DiskFaults() {}

  /**
   * Installs {@code fault} for every file opened under {@code dir} from now on (files already open
   * keep working until they are reopened, as a disk that fills up would not: so install it before
   * opening the log). Closing the handle removes it.
   */
  public static AutoCloseable install(Path dir, DiskFault fault) {
    Path key = dir.toAbsolutePath().normalize();
    FAULTS.put(key, fault);
    return () -> FAULTS.remove(key, fault);
  }

  /** A disk with no room left after {@code bytes} more bytes; fsyncs still work. */
  public static Switchable fullAfter(long bytes) {
    return new Switchable(bytes, false);
  }

  /**
   * A fault that is off until {@link Switchable#diskFull()} or {@link Switchable#fsyncFails()} is
   * called: the disk fills up, or fsync starts failing with EIO, at a moment the test chooses.
   */
  public static Switchable switchable() {
    return new Switchable(Long.MAX_VALUE, false);
  }

  /** A fault the test turns on while the log runs. */
  public static final class Switchable implements DiskFault {
    private final AtomicLong bytesLeft;
    private volatile boolean fsyncFails;

    private Switchable(long bytesLeft, boolean fsyncFails) {
      this.bytesLeft = new AtomicLong(bytesLeft);
      this.fsyncFails = fsyncFails;
    }

    /** Every later write fails after no bytes. */
    public Switchable diskFull() {
      bytesLeft.set(0);
      return this;
    }

    /** Later writes fail once {@code bytes} more bytes have been written (a torn write). */
    public Switchable diskFullAfter(long bytes) {
      bytesLeft.set(bytes);
      return this;
    }

    /**
     * The disk is fine again (space freed, device replaced): later writes and fsyncs succeed. A
     * directory already offline stays offline until the broker restarts.
     */
    public Switchable heal() {
      bytesLeft.set(Long.MAX_VALUE);
      fsyncFails = false;
      return this;
    }

    /** Every later fsync fails with an I/O error. */
    public Switchable fsyncFails() {
      fsyncFails = true;
      return this;
    }

    @Override
    public int writableBytes(Path file, int length) {
      while (true) {
        long left = bytesLeft.get();
        int allowed = (int) Math.min(length, left);
        if (left == Long.MAX_VALUE || bytesLeft.compareAndSet(left, left - allowed)) {
          return allowed;
        }
      }
    }

    @Override
    public void beforeForce(Path file) throws IOException {
      if (fsyncFails) {
        throw new IOException("Input/output error (injected fsync failure of " + file + ")");
      }
    }
  }

  /** The fault for {@code file}, or null: the nearest installed directory above it. */
  static DiskFault faultFor(Path file) {
    if (FAULTS.isEmpty()) {
      return null;
    }
    for (Path p = file.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
      DiskFault fault = FAULTS.get(p);
      if (fault != null) {
        return fault;
      }
    }
    return null;
  }

  static FileChannel open(Path file, OpenOption... options) throws IOException {
    FileChannel channel = FileChannel.open(file, options);
    DiskFault fault = faultFor(file);
    return fault == null ? channel : new FaultyChannel(channel, file, fault);
  }

  /** Delegates everything, but lets {@link DiskFault} cut writes short and fail fsyncs. */
  private static final class FaultyChannel extends FileChannel {
    private final FileChannel delegate;
    private final Path file;
    private final DiskFault fault;

    FaultyChannel(FileChannel delegate, Path file, DiskFault fault) {
      this.delegate = delegate;
      this.file = file;
      this.fault = fault;
    }

    private ByteBuffer allowedPart(ByteBuffer src) {
      int allowed = fault.writableBytes(file, src.remaining());
      if (allowed >= src.remaining()) {
        return src;
      }
      return src.slice(src.position(), allowed);
    }

    private static IOException noSpace(Path file) {
      return new IOException("No space left on device (injected, writing " + file + ")");
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      int wanted = src.remaining();
      ByteBuffer part = allowedPart(src);
      int written = part.remaining() > 0 ? delegate.write(part, position) : 0;
      if (part != src) {
        src.position(src.position() + written);
        if (written < wanted) {
          throw noSpace(file);
        }
      }
      return written;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int wanted = src.remaining();
      ByteBuffer part = allowedPart(src);
      int written = part.remaining() > 0 ? delegate.write(part) : 0;
      if (part != src) {
        src.position(src.position() + written);
        if (written < wanted) {
          throw noSpace(file);
        }
      }
      return written;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      long total = 0;
      for (int i = offset; i < offset + length; i++) {
        total += write(srcs[i]);
      }
      return total;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      fault.beforeForce(file);
      delegate.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      delegate.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      throw noSpace(file); // not used by the log; refuse rather than bypass the fault
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
