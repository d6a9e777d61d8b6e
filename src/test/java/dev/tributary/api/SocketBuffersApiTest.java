package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.Random;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * The running broker's socket buffers ({@code tributary.socket-write-buffer-bytes}, default 32 KiB;
 * the setting's range is in SocketWriteBufferTest): Tomcat took them, and an answer many times the
 * buffer's size arrives whole and in order.
 */
class SocketBuffersApiTest extends ApiTestSupport {
  @Autowired ServletWebServerApplicationContext context;

  @Test
  void connectionsWriteThroughDirectBuffersOfTheConfiguredSize() {
    Connector connector = ((TomcatWebServer) context.getWebServer()).getTomcat().getConnector();

    // Tomcat ignores a property it does not know without a word: read back what it took.
    assertThat(connector.getProperty("socket.appWriteBufSize")).hasToString("32768");
    assertThat(connector.getProperty("socket.directBuffer")).hasToString("true");
  }

  @Test
  void aReadOfManyBuffersArrivesWhole() {
    String topic = newTopicName();
    createTopic(topic, 1);
    Random random = new Random(34);
    byte[][] values = new byte[6][]; // about 750 KB: under max.message.bytes
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < values.length; i++) {
      values[i] = new byte[100_000 + random.nextInt(50_000)];
      random.nextBytes(values[i]);
      body.append(i == 0 ? "" : ",")
          .append("{\"value\":\"")
          .append(Base64.getEncoder().encodeToString(values[i]))
          .append("\"}");
    }
    expectOk(post("/topics/" + topic, EMBEDDED_BINARY, body.append("]}").toString()));

    JsonNode read = readBinary(topic, 0, 0);

    assertThat(read.size()).isEqualTo(values.length);
    for (int i = 0; i < values.length; i++) {
      assertThat(read.get(i).get("offset").longValue()).isEqualTo(i);
      assertThat(Base64.getDecoder().decode(read.get(i).get("value").stringValue()))
          .isEqualTo(values[i]);
    }
  }
}
