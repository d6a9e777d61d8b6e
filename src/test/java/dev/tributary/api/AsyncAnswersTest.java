package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockAsyncContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * {@link AsyncAnswers}: exactly one of the answer, the timeout and a failed connection ends a
 * request, and the answer is written by the request's own thread while that thread is still inside.
 * The container's threads are a queue here that the test runs by hand, so every interleaving is
 * chosen, not hoped for.
 */
class AsyncAnswersTest {
  private final Request request = new Request();
  private final MockHttpServletResponse response = new MockHttpServletResponse();
  private final List<String> written = new ArrayList<>();

  @Test
  void aReadyAnswerIsWrittenAtOnceWithoutTurningAsynchronous() throws IOException {
    answer(CompletableFuture.completedFuture("ready"), true);

    assertThat(written).containsExactly("answer");
    assertThat(request.context).isNull();
  }

  @Test
  void aLaterAnswerIsWrittenOnceOnAContainerThread() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, true);
    assertThat(written).isEmpty();

    answer.complete("later");
    assertThat(written).as("not on the completing thread").isEmpty();
    request.context.runStarted();

    assertEndedOnceWith("answer");
  }

  @Test
  void withoutContainerThreadsTheCompletingThreadWritesIt() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, false);

    answer.complete("later");

    assertThat(request.context.started).isEmpty();
    assertEndedOnceWith("answer");
  }

  @Test
  void anAnswerThatComesBeforeTheRequestThreadLeavesIsWrittenByThatThread() throws IOException {
    // Completes the moment its callback is registered: after the request turned asynchronous,
    // before the request thread has left.
    CompletableFuture<String> answer =
        new CompletableFuture<>() {
          @Override
          public CompletableFuture<String> whenComplete(
              BiConsumer<? super String, ? super Throwable> action) {
            complete("meanwhile");
            return super.whenComplete(action);
          }
        };

    answer(answer, true);

    assertThat(request.context.started).as("no other thread touched the response").isEmpty();
    assertEndedOnceWith("answer");
  }

  @Test
  void theTimeoutEndsTheRequestAndALaterAnswerIsDropped() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, true);

    request.context.fire(AsyncListener::onTimeout);
    answer.complete("too late");
    request.context.runStarted();

    assertEndedOnceWith("timeout");
  }

  @Test
  void anAnswerStillQueuedWhenTheTimeoutFiresIsNotWrittenToo() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, true);

    answer.complete("queued");
    request.context.fire(AsyncListener::onTimeout);
    request.context.runStarted();

    assertEndedOnceWith("timeout");
  }

  @Test
  void whenTheContainerRefusesToStartTheTimeoutStillEndsTheRequest() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, true);
    request.context.refuseStarts = true; // as Tomcat does once the request is timing out

    answer.complete("refused");
    request.context.fire(AsyncListener::onTimeout);

    assertEndedOnceWith("timeout");
  }

  @Test
  void afterAFailedConnectionNothingIsWritten() throws IOException {
    CompletableFuture<String> answer = new CompletableFuture<>();
    answer(answer, true);

    request.context.fire(AsyncListener::onError);
    answer.complete("nobody listening");
    request.context.runStarted();

    assertThat(written).isEmpty();
    assertThat(request.context.completions).isEqualTo(1);
  }

  /** The request ended exactly once, and {@code writer}'s answer is the only one written. */
  private void assertEndedOnceWith(String writer) {
    assertThat(written).containsExactly(writer);
    assertThat(request.context.completions).isEqualTo(1);
  }

  private void answer(CompletableFuture<String> answer, boolean onContainerThread)
      throws IOException {
    AsyncAnswers.answer(
        request,
        response,
        answer,
        1_000,
        onContainerThread,
        r -> written.add("answer"),
        r -> written.add("timeout"));
  }

  /** A request whose asynchronous context queues {@link AsyncContext#start} for the test. */
  private static final class Request extends MockHttpServletRequest {
    QueuedContext context;

    Request() {
      setAsyncSupported(true);
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
      context = new QueuedContext(request, response);
      setAsyncContext(context);
      setAsyncStarted(true);
      return context;
    }
  }

  private static final class QueuedContext extends MockAsyncContext {
    final List<Runnable> started = new ArrayList<>();
    int completions;
    boolean refuseStarts;

    QueuedContext(ServletRequest request, ServletResponse response) {
      super(request, response);
    }

    @Override
    public void start(Runnable runnable) {
      if (refuseStarts) {
        throw new IllegalStateException("the request is ending");
      }
      started.add(runnable);
    }

    @Override
    public void complete() {
      completions++;
      super.complete();
    }

    void runStarted() {
      List<Runnable> queued = List.copyOf(started);
      started.clear();
      queued.forEach(Runnable::run);
    }

    interface Event {
      void on(AsyncListener listener, AsyncEvent event) throws IOException;
    }

    void fire(Event event) throws IOException {
      for (AsyncListener listener : List.copyOf(getListeners())) {
        event.on(listener, new AsyncEvent(this, getRequest(), getResponse()));
      }
    }
  }
}
