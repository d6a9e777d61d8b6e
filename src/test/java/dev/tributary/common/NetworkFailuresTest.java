package dev.tributary.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class NetworkFailuresTest {
  @Test
  void theInnermostCauseIsDescribedInWordsNeverByItsClass() {
    assertThat(
            NetworkFailures.describe(
                new CompletionException(new IOException("x", new ConnectException("10.0.0.1")))))
        .isEqualTo("the connection was refused");
    assertThat(NetworkFailures.describe(new HttpConnectTimeoutException("t")))
        .isEqualTo("connecting timed out");
    assertThat(NetworkFailures.describe(new UncheckedIOException(new HttpTimeoutException("t"))))
        .isEqualTo("no answer in time");
    assertThat(NetworkFailures.describe(new IllegalStateException("java.lang.Oops")))
        .isEqualTo("the call failed");
  }
}
