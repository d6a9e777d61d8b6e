package dev.tributary.api;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers that are not ready yet, for the filters that answer outside Spring MVC ({@link
 * InternalReplicaFilter}, {@link RecordEndpointsFilter}): the request turns asynchronous, so no
 * thread waits, and exactly one of the answer's completion, the timeout or a failed connection ends
 * it.
 */
final class AsyncAnswers {
  private static final Logger logger = LoggerFactory.getLogger(AsyncAnswers.class);

  /** Writes a response; may fail on the client's socket. */
  @FunctionalInterface
  interface Writer {
    void write(HttpServletResponse response) throws IOException;
  }

  private AsyncAnswers() {}

  /**
   * Ends the request with {@code onCompletion}: now when {@code answer} is complete, else once it
   * completes, or with {@code onTimeout} after {@code timeoutMs}. {@code onContainerThread}: write
   * a later answer on one of the container's threads ({@link AsyncContext#start}) rather than on
   * the thread that completes it, which must then not block on this client's socket.
   */
  static void answer(
      HttpServletRequest request,
      HttpServletResponse response,
      CompletableFuture<?> answer,
      long timeoutMs,
      boolean onContainerThread,
      Writer onCompletion,
      Writer onTimeout)
      throws IOException {
    if (answer.isDone()) {
      onCompletion.write(response);
      return;
    }
    AsyncContext async = request.startAsync(request, response);
    async.setTimeout(timeoutMs);
    AtomicBoolean ended = new AtomicBoolean(); // by the completion, the timeout or an error
    async.addListener(new Abandoned(answer, ended, onTimeout));
    answer.whenComplete(
        (value, error) -> {
          if (!ended.compareAndSet(false, true)) {
            return;
          }
          Runnable end = () -> writeAndComplete(async, response, onCompletion);
          if (onContainerThread) {
            async.start(end);
          } else {
            end.run();
          }
        });
  }

  private static void writeAndComplete(
      AsyncContext async, HttpServletResponse response, Writer writer) {
    try {
      writer.write(response);
    } catch (IOException | RuntimeException e) {
      logger.debug("Could not send an answer: {}", e.toString());
    } finally {
      async.complete();
    }
  }

  /** The timeout's answer, or nothing more after a failed connection. */
  private static final class Abandoned implements AsyncListener {
    private final CompletableFuture<?> answer;
    private final AtomicBoolean ended;
    private final Writer onTimeout;

    Abandoned(CompletableFuture<?> answer, AtomicBoolean ended, Writer onTimeout) {
      this.answer = answer;
      this.ended = ended;
      this.onTimeout = onTimeout;
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      if (ended.compareAndSet(false, true)) {
        writeAndComplete(
            event.getAsyncContext(), (HttpServletResponse) event.getSuppliedResponse(), onTimeout);
      }
      answer.cancel(false);
    }

    @Override
    public void onError(AsyncEvent event) {
      if (ended.compareAndSet(false, true)) { // the connection failed: nothing more to write
        event.getAsyncContext().complete();
      }
      answer.cancel(false);
    }

    @Override
    public void onComplete(AsyncEvent event) {}

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
