package dev.tributary.demo;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./tributary demo [NAME] [--auto] [--lang zh|en]}: guided demos that explain an idea, make
 * it happen on the running cluster, check the outcome and say what to look at on the dashboard
 * (docs/demos.md). A standalone HTTP client like the load generator: it runs from the broker's jar
 * with {@code -Dloader.main=dev.tributary.demo.DemoMain
 * org.springframework.boot.loader.launch.PropertiesLauncher}.
 *
 * <p>Exit status: 0 the demo ran and every claim of its verdict held (or the list was printed); 1 a
 * claim failed or the demo could not run; 2 a bad command line.
 */
public final class DemoMain {
  static final String DEFAULT_URL = "http://127.0.0.1:8081";

  private DemoMain() {}

  public static void main(String[] argv) {
    // UTF-8 whatever the JVM's default: the Chinese narration must survive LANG=C.
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err =
        new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    System.exit(run(argv, System.getenv(), System.in, out, err, null));
  }

  /** The command line parsed; {@code name} null means "list the demos". */
  record Options(
      String name,
      boolean auto,
      Locale locale,
      URI url,
      Path dataDir,
      Path launcher,
      boolean help) {}

  /** A bad command line: exit 2. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  static Options parse(String[] argv, Map<String, String> env) {
    String name = null;
    boolean auto = false;
    boolean help = false;
    String lang = null;
    URI url = URI.create(DEFAULT_URL);
    Path data = null;
    Path launcher = null;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      switch (a) {
        case "--auto" -> auto = true;
        case "--help", "-h", "help" -> help = true;
        case "--lang", "--url", "--data", "--launcher" -> {
          if (i + 1 >= argv.length) {
            throw new UsageException(a + " needs a value");
          }
          String v = argv[++i];
          switch (a) {
            case "--lang" -> lang = v;
            case "--url" -> url = url(v);
            case "--data" -> data = Path.of(v);
            default -> launcher = Path.of(v);
          }
        }
        default -> {
          if (a.startsWith("--lang=")) {
            lang = a.substring("--lang=".length());
          } else if (a.startsWith("-")) {
            throw new UsageException("unknown option '" + a + "'");
          } else if (name == null) {
            name = a;
          } else {
            throw new UsageException("one demo at a time: '" + name + "' and '" + a + "'");
          }
        }
      }
    }
    Locale locale;
    try {
      locale = Messages.choose(lang, env);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return new Options(name, auto, locale, url, data, launcher, help);
  }

  private static URI url(String raw) {
    try {
      URI uri = URI.create(raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw);
      if ("http".equals(uri.getScheme()) && uri.getHost() != null) {
        return uri;
      }
    } catch (IllegalArgumentException e) {
      // fall through
    }
    throw new UsageException("--url must look like http://HOST:PORT, not '" + raw + "'");
  }

  /**
   * Runs the command line. {@code control} null means: through the launcher named by {@code
   * --launcher} and {@code --data}, as {@code ./tributary demo} passes them.
   */
  public static int run(
      String[] argv,
      Map<String, String> env,
      InputStream in,
      PrintStream out,
      PrintStream err,
      BrokerControl control) {
    Options o;
    try {
      o = parse(argv, env);
    } catch (UsageException e) {
      Messages m = Messages.of(Messages.choose(null, env));
      err.println("demo: " + e.getMessage());
      err.print(m.get("main.usage"));
      return 2;
    }
    Messages m = Messages.of(o.locale());
    if (o.help()) {
      out.print(m.get("main.usage"));
      return 0;
    }
    if (o.name() == null) {
      list(m, out);
      return 0;
    }
    Demo demo = Demos.named(o.name()).orElse(null);
    if (demo == null) {
      err.println(m.get("main.unknown", o.name()));
      list(m, err);
      return 2;
    }
    BrokerControl brokers = control != null ? control : launcherControl(o);
    DemoCluster cluster = new DemoCluster(new DemoHttp(DemoHttp.token(env, o.dataDir())), o.url());
    Verdict verdict = new Verdict();
    BufferedReader input = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    try (Narrator narrator = new Narrator(demo, m, cluster, out, input, o.auto())) {
      if (control == null) { // the command line: Ctrl-C must not leave the banner up for a minute
        Runtime.getRuntime().addShutdownHook(new Thread(narrator::close, "demo-banner-clear"));
      }
      cluster.brokers(); // learns every broker's address, and fails early when none answers
      narrator.intro();
      demo.run(new DemoContext(demo, cluster, brokers, m, narrator, verdict));
    } catch (DemoException e) {
      verdict.unfinished();
      verdict.print(demo.name(), m, out);
      err.println(m.get("main.failed", demo.name(), e.getMessage()));
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(m.get("main.failed", demo.name(), "interrupted"));
      return 1;
    } catch (Exception e) {
      verdict.unfinished();
      verdict.print(demo.name(), m, out);
      err.println(m.get("main.failed", demo.name(), e.toString()));
      return 1;
    }
    verdict.print(demo.name(), m, out);
    return verdict.exitCode();
  }

  private static void list(Messages m, PrintStream out) {
    out.println(m.get("main.list"));
    for (Demo d : Demos.ALL) {
      out.printf("  %-12s %s%n", d.name(), m.get(d.name() + ".summary"));
    }
    out.println(m.get("main.list.run"));
  }

  private static BrokerControl launcherControl(Options o) {
    if (o.launcher() != null && o.dataDir() != null) {
      return new LauncherControl(o.launcher(), o.dataDir());
    }
    return new BrokerControl() { // run by hand without the launcher: no crash or restart
      @Override
      public void kill(int id) {
        throw new DemoException("this demo kills brokers: run it as ./tributary demo NAME");
      }

      @Override
      public void start(int id) {
        throw new DemoException("this demo restarts brokers: run it as ./tributary demo NAME");
      }

      @Override
      public boolean isRunning(int id) {
        return true;
      }
    };
  }
}
