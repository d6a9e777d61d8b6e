package dev.tributary.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tributary.tls.*}: how brokers use TLS towards each other. Whether TLS is on at all is
 * decided in one place, the HTTP listener: {@code server.ssl.bundle=<name>} (with {@code
 * spring.ssl.bundle.pem.<name>.*} or {@code spring.ssl.bundle.jks.<name>.*}). Then every broker
 * calls its peers over {@code https} and the Raft port requires mutual TLS (docs/security.md, "TLS:
 * HTTP listener and Raft port").
 *
 * @param peerBundle the SSL bundle a broker uses towards its peers: its trust store decides which
 *     listeners it trusts over https and which Raft peers it accepts, its key store is the
 *     certificate it presents on the Raft port. Empty (the default): the listener's own {@code
 *     server.ssl.bundle}. In a cluster it must have a trust store (the cluster CA): the JDK's
 *     public CAs are never trusted to join the quorum.
 */
@ConfigurationProperties("tributary.tls")
public record TlsProperties(@DefaultValue("") String peerBundle) {}
