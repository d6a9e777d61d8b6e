package dev.tributary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Ports for test servers (broker HTTP, Raft peers) that cannot collide.
 *
 * <p>Port 0 ("any free port") is not good enough: the kernel hands such ports out of its ephemeral
 * range, which is also where every outgoing connection's local port comes from, and a port free at
 * allocation can be taken before the broker binds it, by an outgoing connection or by the next
 * {@code new ServerSocket(0)}; twice in a row it gave two brokers the same port. So, for every port
 * handed out:
 *
 * <ul>
 *   <li>it lies below the ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}, else
 *       32768) and at or above {@value #LOWEST}, away from the well-known ports and the launcher's
 *       8081-8089 and 9191-9199;
 *   <li>it is never handed out twice by this JVM (all test classes of a Failsafe or Surefire run
 *       share it);
 *   <li>another JVM using this class (a concurrent build, another fork) cannot hand it out while
 *       this one lives: each port is held by an exclusive lock on {@code
 *       <tmpdir>/tributary-test-ports/<port>.lock}, released by the OS when this JVM ends, however
 *       it ends;
 *   <li>nothing listens on it at allocation (a bind test on the wildcard address, the strictest
 *       one);
 *   <li>the search starts at an offset derived from the PID, so concurrent JVMs rarely even contend
 *       for locks.
 * </ul>
 *
 * Thread safe.
 */
public final class TestPorts {
  static final int LOWEST = 20_000;
  private static final int FALLBACK_EPHEMERAL_LOW = 32_768;

  private static final Set<Integer> handedOut = new HashSet<>();
  private static final List<FileChannel> locks =
      new ArrayList<>(); // held open (and locked) until the JVM exits
  private static final int lowest = LOWEST;
  private static final int highestExclusive = ephemeralLow();
  private static int next =
      lowest + (int) (ProcessHandle.current().pid() * 7919 % (highestExclusive - lowest));

  private TestPorts() {}

  /** A port no one else in this run (or in a concurrent run using this class) has or will get. */
  public static synchronized int next() {
    int span = highestExclusive - lowest;
    for (int tried = 0; tried < span; tried++) {
      int port = next;
      next = next + 1 == highestExclusive ? lowest : next + 1;
      if (!handedOut.contains(port) && lock(port) && bindable(port)) {
        handedOut.add(port);
        return port;
      }
    }
    throw new IllegalStateException(
        "no free test port left in [" + lowest + ", " + highestExclusive + ")");
  }

  /** {@code count} distinct ports. */
  public static List<Integer> next(int count) {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ports.add(next());
    }
    return ports;
  }

  /** The lowest port of the kernel's ephemeral range, which test ports stay below. */
  static int ephemeralLow() {
    try {
      // readAllLines, not readString: on JDK 17 readString of this /proc file returned only its
      // first byte.
      String range =
          Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      if (low - LOWEST < 1_000) {
        throw new IllegalStateException(
            "the ephemeral port range starts at "
                + low
                + " (ip_local_port_range: "
                + range
                + "), too close to "
                + LOWEST
                + " to leave room for test ports below it");
      }
      return low;
    } catch (IOException | NumberFormatException e) {
      return FALLBACK_EPHEMERAL_LOW; // not Linux; IANA's range starts at 49152, so this stays below
      // it too
    }
  }

  private static boolean lock(int port) {
    try {
      Path dir = Path.of(System.getProperty("java.io.tmpdir"), "tributary-test-ports");
      Files.createDirectories(dir);
      FileChannel channel =
          FileChannel.open(
              dir.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this JVM holds it already (cannot happen: handedOut is checked first)
      }
      if (lock == null) {
        channel.close();
        return false; // another live JVM has it
      }
      locks.add(channel);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock test port " + port, e);
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(
          true); // as the servers under test do: a port with only TIME_WAIT leftovers is free
      socket.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
