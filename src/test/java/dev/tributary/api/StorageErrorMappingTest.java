package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.log.KafkaStorageException;
import dev.tributary.log.LogStorageException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How storage errors answer (docs/api.md, Errors; docs/adr/0015-offline-log-dir.md). */
class StorageErrorMappingTest {
  @Test
  void anOfflineLogDirectoryAnswers503WithTheRetriableStorageErrorCode() {
    var response =
        ApiExceptionHandler.toResponse(
            new CompletionException(
                new KafkaStorageException(
                    "append to orders-0 failed (No space left on device); log directory"
                        + " /data/logs is offline",
                    new IOException("No space left on device"))));
    assertThat(response.getStatusCode().value()).isEqualTo(503);
    assertThat(response.getBody().errorCode()).isEqualTo(50311);
    assertThat(response.getBody().message())
        .startsWith("Storage error: append to orders-0 failed (No space left on device)");
  }

  @Test
  void anotherStorageErrorStaysAn500() {
    var response =
        ApiExceptionHandler.toResponse(new LogStorageException("read kept racing", null));
    assertThat(response.getStatusCode().value()).isEqualTo(500);
    assertThat(response.getBody().errorCode()).isEqualTo(50003);
  }
}
