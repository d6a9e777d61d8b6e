package dev.tributary.demo;

import java.util.List;

/**
 * What a {@link Demo} works with: the cluster over HTTP, broker processes, and the narration. All
 * texts are message keys under the demo's prefix: {@code ctx.step("keys")} in demo {@code
 * partitions} prints {@code partitions.keys.title} and {@code partitions.keys.why}; {@code
 * ctx.action("keys.send", n)} prints {@code partitions.keys.send} with {@code {0}} = n.
 * Placeholders are filled in order; whole numbers are printed with grouping (4,812).
 *
 * <p>A step reads: {@link #step} (what is about to happen and why; the banner moves; Enter is
 * awaited), then the demo acts and prints {@link #action}, measures and prints {@link #result}, and
 * says where to look with {@link #look}. {@link #check} records a claim of the verdict.
 */
public final class DemoContext {
  private final Demo demo;
  private final DemoCluster cluster;
  private final BrokerControl brokers;
  private final Messages messages;
  private final Narrator narrator;
  private final Verdict verdict;

  DemoContext(
      Demo demo,
      DemoCluster cluster,
      BrokerControl brokers,
      Messages messages,
      Narrator narrator,
      Verdict verdict) {
    this.demo = demo;
    this.cluster = cluster;
    this.brokers = brokers;
    this.messages = messages;
    this.narrator = narrator;
    this.verdict = verdict;
  }

  /** The cluster's REST API and dashboard endpoints. */
  public DemoCluster cluster() {
    return cluster;
  }

  /** Killing and starting broker processes. */
  public BrokerControl brokers() {
    return brokers;
  }

  /** Begins the next step: {@code NAME.KEY.title} and {@code NAME.KEY.why}. */
  public void step(String key, Object... args) {
    narrator.step(text(key + ".title", args), text(key + ".why", args));
  }

  /** What the demo does now ({@code → ...}). */
  public void action(String key, Object... args) {
    narrator.action(text(key, args));
  }

  /** What it measured ({@code = ...}), with the figures. */
  public void result(String key, Object... args) {
    narrator.result(text(key, args));
  }

  /** Where to look on the dashboard. */
  public void look(String key, Object... args) {
    narrator.look(text(key, args));
  }

  /** A line of plain narration (a table row, a detail). */
  public void note(String key, Object... args) {
    narrator.note(text(key, args));
  }

  /** A line printed as it is (figures, ids): not translated. */
  public void raw(String line) {
    narrator.note(line);
  }

  /**
   * Records a claim of the verdict: {@code NAME.KEY} filled with {@code args}, holding or not.
   * Returns {@code holds}, so a demo can stop early after a failed claim.
   */
  public boolean check(boolean holds, String key, Object... args) {
    return verdict.add(text(key, args), holds);
  }

  /** The partitions ({@code topic-partition}) the dashboard highlights from the next step on. */
  public void highlight(List<String> partitionKeys) {
    narrator.partitions(partitionKeys);
  }

  /** A message of this demo, {@code NAME.KEY}, for texts a demo builds itself. */
  public String text(String key, Object... args) {
    return messages.get(demo.name() + "." + key, args);
  }

  /** The language's code: {@code en} or {@code zh}. */
  public String language() {
    return messages.language();
  }
}
