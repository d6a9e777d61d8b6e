package dev.tributary.tls;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * A throw-away certificate authority and one broker certificate it signed, made in the test with
 * the JDK's {@code keytool} (no extra dependency): EC P-256, valid two days, the broker's for
 * {@code IP:127.0.0.1} and {@code DNS:localhost}, usable as TLS server and client. Four keytool
 * runs of about half a second each; make one set per test class.
 *
 * <p>Files in {@code dir}: {@code ca.pem} (the CA certificate, the trust store), {@code broker.pem}
 * (the broker's certificate chain), {@code broker.key} (its PKCS#8 private key), and {@code
 * broker.p12} (a PKCS#12 key store with both, password {@value #PASSWORD}).
 */
public final class TestCertificates {
  public static final String PASSWORD = "changeit";

  public final Path dir;
  public final Path caPem;
  public final Path brokerPem;
  public final Path brokerKey;
  public final Path brokerP12;
  private static final String SAN = "SAN=IP:127.0.0.1,DNS:localhost";
  private static final String EKU = "EKU=serverAuth,clientAuth";

  private final X509Certificate ca;
  private final KeyStore brokerKeyStore;

  private TestCertificates(Path dir, X509Certificate ca, KeyStore brokerKeyStore) {
    this.dir = dir;
    this.caPem = dir.resolve("ca.pem");
    this.brokerPem = dir.resolve("broker.pem");
    this.brokerKey = dir.resolve("broker.key");
    this.brokerP12 = dir.resolve("broker.p12");
    this.ca = ca;
    this.brokerKeyStore = brokerKeyStore;
  }

  /** Makes a new CA called {@code name} and a broker certificate it signed, under {@code dir}. */
  public static TestCertificates generate(Path dir, String name) {
    try {
      Files.createDirectories(dir);
      Path caP12 = dir.resolve("ca.p12");
      Path brokerP12 = dir.resolve("broker.p12");
      Path csr = dir.resolve("broker.csr");
      Path signed = dir.resolve("broker-signed.pem");
      keytool(genKeyPair(caP12, "ca", "CN=" + name + " test CA", "-ext", "bc:c"));
      keytool(genKeyPair(brokerP12, "broker", "CN=" + name + " broker"));
      keytool(
          "-certreq",
          "-alias",
          "broker",
          "-file",
          csr.toString(),
          "-keystore",
          brokerP12.toString(),
          "-storepass",
          PASSWORD);
      keytool(
          "-gencert",
          "-alias",
          "ca",
          "-infile",
          csr.toString(),
          "-outfile",
          signed.toString(),
          "-rfc",
          "-validity",
          "2",
          "-ext",
          SAN,
          "-ext",
          EKU,
          "-keystore",
          caP12.toString(),
          "-storepass",
          PASSWORD);

      X509Certificate ca = (X509Certificate) load(caP12).getCertificate("ca");
      X509Certificate leaf;
      try (InputStream in = Files.newInputStream(signed)) {
        leaf = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      KeyStore broker = load(brokerP12);
      PrivateKey key = (PrivateKey) broker.getKey("broker", PASSWORD.toCharArray());
      broker.setKeyEntry("broker", key, PASSWORD.toCharArray(), new Certificate[] {leaf, ca});
      try (var out = Files.newOutputStream(brokerP12)) {
        broker.store(out, PASSWORD.toCharArray());
      }
      return write(dir, ca, broker, key, leaf.getEncoded(), ca.getEncoded());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A stranger's certificate: valid for the same names and uses, but signed by nobody the cluster
   * knows (self-signed; it is its own "CA"). One keytool run.
   */
  public static TestCertificates selfSigned(Path dir, String name) {
    try {
      Files.createDirectories(dir);
      Path brokerP12 = dir.resolve("broker.p12");
      keytool(genKeyPair(brokerP12, "broker", "CN=" + name, "-ext", SAN, "-ext", EKU));
      KeyStore broker = load(brokerP12);
      X509Certificate self = (X509Certificate) broker.getCertificate("broker");
      PrivateKey key = (PrivateKey) broker.getKey("broker", PASSWORD.toCharArray());
      return write(dir, self, broker, key, self.getEncoded());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TestCertificates write(
      Path dir, X509Certificate ca, KeyStore broker, PrivateKey key, byte[]... chain)
      throws IOException, GeneralSecurityException {
    TestCertificates made = new TestCertificates(dir, ca, broker);
    Files.writeString(made.caPem, pem("CERTIFICATE", ca.getEncoded()), US_ASCII);
    StringBuilder chainPem = new StringBuilder();
    for (byte[] der : chain) {
      chainPem.append(pem("CERTIFICATE", der));
    }
    Files.writeString(made.brokerPem, chainPem, US_ASCII);
    Files.writeString(made.brokerKey, pem("PRIVATE KEY", key.getEncoded()), US_ASCII);
    return made;
  }

  public X509Certificate caCertificate() {
    return ca;
  }

  /** Presents the broker certificate (with the CA in its chain). */
  public X509KeyManager keyManager() {
    try {
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(brokerKeyStore, PASSWORD.toCharArray());
      return Arrays.stream(factory.getKeyManagers())
          .filter(X509KeyManager.class::isInstance)
          .map(X509KeyManager.class::cast)
          .findFirst()
          .orElseThrow();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Trusts this CA and nothing else. */
  public X509TrustManager trustManager() {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", ca);
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trust);
      return Arrays.stream(factory.getTrustManagers())
          .filter(X509TrustManager.class::isInstance)
          .map(X509TrustManager.class::cast)
          .findFirst()
          .orElseThrow();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A client context that trusts this CA and presents no certificate. */
  public SSLContext trustingClientContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new javax.net.ssl.TrustManager[] {trustManager()}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String[] genKeyPair(Path keyStore, String alias, String dname, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dname,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static void keytool(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    // A short-lived JVM: the C1 compiler and the serial collector start it in about half the time.
    command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException(
            "keytool " + String.join(" ", args) + " failed: " + new String(output, US_ASCII));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted running keytool", e);
    }
  }

  private static KeyStore load(Path p12) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      store.load(in, PASSWORD.toCharArray());
    }
    return store;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
