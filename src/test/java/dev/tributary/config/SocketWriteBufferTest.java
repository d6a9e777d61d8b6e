package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.util.unit.DataSize;

/**
 * {@code tributary.socket-write-buffer-bytes} reaches Tomcat's connector as given, with direct
 * buffers, and a size outside 1 KiB–1 MiB stops the broker at start with the setting's name.
 */
class SocketWriteBufferTest {
  private static Connector customizedConnector(int socketWriteBufferBytes) {
    TomcatServletWebServerFactory factory = new TomcatServletWebServerFactory();
    new LimitsConfiguration()
        .tomcatLimits(DataSize.ofKilobytes(8), 100, 256, socketWriteBufferBytes)
        .customize(factory);
    Connector connector = new Connector(factory.getProtocol());
    factory.getConnectorCustomizers().forEach(customizer -> customizer.customize(connector));
    return connector;
  }

  @Test
  void theConfiguredSizeReachesTheConnectorWithDirectBuffers() {
    Connector connector = customizedConnector(65_536);

    // Tomcat ignores a property it does not know without a word: read back what it took.
    assertThat(connector.getProperty("socket.appWriteBufSize")).hasToString("65536");
    assertThat(connector.getProperty("socket.directBuffer")).hasToString("true");
  }

  @Test
  void aSizeOutsideTheRangeIsRefusedByName() {
    for (int bytes : new int[] {0, 1023, 1024 * 1024 + 1}) {
      assertThatThrownBy(() -> customizedConnector(bytes))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tributary.socket-write-buffer-bytes")
          .hasMessageContaining(Integer.toString(bytes));
    }
    assertThat(customizedConnector(1024).getProperty("socket.appWriteBufSize")).hasToString("1024");
  }
}
