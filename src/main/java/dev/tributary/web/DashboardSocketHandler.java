package dev.tributary.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.springframework.stereotype.Component;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.handler.TextWebSocketHandler;

/**
 * {@code /dashboard/ws}: each connection is a {@link DashboardPublisher.Subscriber}. The page only
 * listens; what it sends is ignored (its actions are plain HTTP requests).
 */
@Component
class DashboardSocketHandler extends TextWebSocketHandler {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(DashboardSocketHandler.class);

  private final DashboardPublisher publisher;
  private final Executor sends;
  private final Map<String, DashboardPublisher.Subscriber> subscribers = new ConcurrentHashMap<>();

  DashboardSocketHandler(LiveClusterView view) {
    this.publisher = view.publisher();
    this.sends = view.sendExecutor();
  }

  @Override
  public void afterConnectionEstablished(WebSocketSession session) {
    session.setTextMessageSizeLimit(4096);
    DashboardPublisher.Subscriber subscriber =
        new DashboardPublisher.Subscriber() {
          @Override
          public CompletionStage<Void> send(String message) {
            // Blocking write on a send thread; the publisher never starts a second one before this
            // one is done.
            return CompletableFuture.runAsync(
                () -> {
                  try {
                    session.sendMessage(new TextMessage(message));
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                },
                sends);
          }

          @Override
          public void close() {
            try {
              session.close(CloseStatus.SESSION_NOT_RELIABLE);
            } catch (IOException | RuntimeException e) {
              logger.debug("Closing a dashboard session failed", e);
            }
          }
        };
    subscribers.put(session.getId(), subscriber);
    publisher.subscribe(subscriber);
  }

  @Override
  public void afterConnectionClosed(WebSocketSession session, CloseStatus status) {
    DashboardPublisher.Subscriber subscriber = subscribers.remove(session.getId());
    if (subscriber != null) {
      publisher.unsubscribe(subscriber);
    }
  }

  @Override
  public void handleTransportError(WebSocketSession session, Throwable exception) {
    logger.debug("Dashboard socket error", exception);
  }
}
