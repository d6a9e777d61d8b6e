package dev.tributary.api;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
   * completes, or with {@code onTimeout} after {@code timeoutMs}. An answer that completes while
   * the request's own thread is still on its way out through the filters is written by that thread,
   * as it leaves this method: the filters it returns through (Spring Security's header writer among
   * them) still touch the response, which must not be written from two threads at once. A later
   * answer is written on one of the container's threads ({@link AsyncContext#start}) when {@code
   * onContainerThread}, else on the thread that completes it, which must then not block on this
   * client's socket.
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
    Pending pending =
        new Pending(async, response, answer, onContainerThread, onCompletion, onTimeout);
    async.addListener(pending);
    answer.whenComplete((value, error) -> pending.completed());
    pending.requestThreadLeaves();
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

  /** One asynchronous answer, from the moment the request turned asynchronous to its end. */
  private static final class Pending implements AsyncListener {
    private static final int INSIDE = 0; // the request thread has not left answer() yet
    private static final int LEFT = 1; // it has, with the answer still pending
    private static final int COMPLETED_INSIDE = 2; // the answer came before it left: it writes

    private final AsyncContext async;
    private final HttpServletResponse response;
    private final CompletableFuture<?> answer;
    private final boolean onContainerThread;
    private final Writer onCompletion;
    private final Writer onTimeout;
    private final AtomicInteger requestThread = new AtomicInteger(INSIDE);

    /** Set by whichever of the completion, the timeout and an error ends the request first. */
    private final AtomicBoolean ended = new AtomicBoolean();

    Pending(
        AsyncContext async,
        HttpServletResponse response,
        CompletableFuture<?> answer,
        boolean onContainerThread,
        Writer onCompletion,
        Writer onTimeout) {
      this.async = async;
      this.response = response;
      this.answer = answer;
      this.onContainerThread = onContainerThread;
      this.onCompletion = onCompletion;
      this.onTimeout = onTimeout;
    }

    /** The answer completed (on whatever thread completed it). */
    void completed() {
      if (requestThread.compareAndSet(INSIDE, COMPLETED_INSIDE)) {
        return; // the request thread writes it as it leaves
      }
      if (!onContainerThread) {
        end();
        return;
      }
      try {
        async.start(this::end);
      } catch (IllegalStateException e) {
        // The request is already ending (timed out, or its connection failed): that path ends it.
      }
    }

    /** The request thread leaves: it writes the answer if it came meanwhile. */
    void requestThreadLeaves() {
      if (!requestThread.compareAndSet(INSIDE, LEFT)) {
        end();
      }
    }

    private void end() {
      if (ended.compareAndSet(false, true)) {
        writeAndComplete(async, response, onCompletion);
      }
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
