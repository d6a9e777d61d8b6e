package dev.tributary.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Prints a demo step by step and keeps the dashboard's banner on the current step. Each step: its
 * title and why it is next, a wait for Enter (unless {@code --auto}, or stdin has ended), then the
 * demo's action, result and where to look lines. The banner is sent to every broker at each step
 * and again every {@value #REFRESH_S} s, since a broker drops one it has not heard of for a minute.
 */
final class Narrator implements AutoCloseable {
  static final long REFRESH_S = 20;

  private final Demo demo;
  private final Messages messages;
  private final DemoCluster cluster;
  private final PrintStream out;
  private final BufferedReader in;
  private boolean auto;
  private int step;
  private volatile String banner;
  private List<String> partitions = List.of();
  private final ScheduledExecutorService refresher;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  Narrator(
      Demo demo,
      Messages messages,
      DemoCluster cluster,
      PrintStream out,
      BufferedReader in,
      boolean auto) {
    this.demo = demo;
    this.messages = messages;
    this.cluster = cluster;
    this.out = out;
    this.in = in;
    this.auto = auto;
    this.refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "demo-banner");
              t.setDaemon(true);
              return t;
            });
    refresher.scheduleWithFixedDelay(this::refresh, REFRESH_S, REFRESH_S, TimeUnit.SECONDS);
  }

  void intro() {
    out.println("== " + messages.get(demo.name() + ".title") + " ==");
    out.println(messages.get(demo.name() + ".summary"));
  }

  /** Starts the next step: prints its title and why, updates the banner, waits for Enter. */
  int step(String title, String why) {
    step++;
    out.println();
    out.println(messages.get("narrator.step", step, demo.steps(), title));
    out.println(why);
    banner = bannerJson(title + " — " + why);
    cluster.tellEveryBroker(banner);
    if (!auto) {
      out.print(messages.get("narrator.enter"));
      out.flush();
      try {
        if (in.readLine() == null) {
          auto = true; // stdin ended (a pipe, a script): go on by itself
          out.println();
        }
      } catch (IOException e) {
        auto = true;
      }
    }
    return step;
  }

  void action(String text) {
    out.println("  → " + text);
  }

  void result(String text) {
    out.println("  = " + text);
  }

  void look(String text) {
    out.println("  " + messages.get("narrator.look", text));
  }

  void note(String text) {
    out.println("  " + text);
  }

  /** The {@code topic-partition} keys the banner highlights from the next update on. */
  void partitions(List<String> keys) {
    partitions = List.copyOf(keys);
  }

  int currentStep() {
    return step;
  }

  private String bannerJson(String text) {
    ObjectNode body = DemoHttp.JSON.createObjectNode();
    body.put("name", demo.name());
    body.put("title", messages.get(demo.name() + ".title"));
    body.put("step", Math.max(1, Math.min(step, demo.steps())));
    body.put("steps", demo.steps());
    body.put("text", text.length() > 2000 ? text.substring(0, 1997) + "..." : text);
    ArrayNode topics = body.putArray("topics");
    demo.topics().forEach(topics::add);
    ArrayNode keys = body.putArray("partitions");
    partitions.forEach(keys::add);
    return body.toString();
  }

  private void refresh() {
    String current = banner;
    if (current != null) {
      cluster.tellEveryBroker(current);
    }
  }

  /** Stops the refresher and clears the banner on every broker that answers. */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    refresher.shutdownNow();
    banner = null;
    cluster.tellEveryBroker("{\"clear\":true}");
  }
}
