package dev.tributary.common;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/**
 * Why a call to another broker failed, in words a client may read. Error messages name what went
 * wrong, never a Java class (a {@code java.net.ConnectException} in a REST answer is a library's
 * internals, and the seeded fuzz on the network harness checks for them).
 */
public final class NetworkFailures {
  private NetworkFailures() {}

  /** The innermost cause of {@code failure}, described: e.g. "the connection was refused". */
  public static String describe(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    if (cause instanceof ConnectException) {
      return "the connection was refused";
    } else if (cause instanceof HttpConnectTimeoutException) {
      return "connecting timed out";
    } else if (cause instanceof HttpTimeoutException
        || cause instanceof SocketTimeoutException
        || cause instanceof TimeoutException) {
      return "no answer in time";
    } else if (cause instanceof NoRouteToHostException) {
      return "no route to the host";
    } else if (cause instanceof UnknownHostException) {
      return "the host name does not resolve";
    } else if (cause instanceof ClosedChannelException || cause instanceof SocketException) {
      return "the connection was closed";
    } else if (cause instanceof InterruptedException) {
      return "interrupted";
    }
    return "the call failed";
  }
}
