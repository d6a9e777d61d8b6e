package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PercentEncodingTest {
  private static final int MAX = 1000;

  @Test
  void textInAnyScriptAndTomcatsShapesOfParametersPass() {
    for (String ok :
        new String[] {
          "",
          "offset=0&max_bytes=1024",
          "a",
          "a=",
          "&&a=1&&",
          "a==b",
          "a=b=c",
          "+=1",
          "name=%E2%82%AC%20%F0%9F%92%A9%C3%A9",
          "%7E%2F%25",
          "principal=User%3Aalice"
        }) {
      assertThat(PercentEncoding.parametersProblem("The query string", ok, MAX)).as(ok).isNull();
    }
    assertThat(PercentEncoding.parametersProblem("The query string", null, MAX)).isNull();
    assertThat(PercentEncoding.pathProblem("/topics/caf%C3%A9/partitions/0/records")).isNull();
  }

  @Test
  void aPercentWithoutTwoHexDigitsIsNamedWithWhereItIs() {
    assertThat(PercentEncoding.parametersProblem("The query string", "offset=%zz", MAX))
        .isEqualTo(
            "The query string has '%zz' at character 8, which is not a percent-escape: '%' must be"
                + " followed by two hex digits");
    assertThat(PercentEncoding.parametersProblem("The query string", "a=1&b=%", MAX))
        .startsWith("The query string has '%' at character 7, which is not a percent-escape");
    assertThat(PercentEncoding.parametersProblem("The query string", "%f", MAX))
        .startsWith("The query string has '%f' at character 1,");
    assertThat(PercentEncoding.pathProblem("/topics/%g0")).startsWith("The request path has '%g0'");
  }

  @Test
  void bytesThatAreNotUtf8AreRefusedOverlongSurrogateAndPastTheLastCodePointIncluded() {
    assertThat(PercentEncoding.parametersProblem("The query string", "offset=%ff%fe", MAX))
        .isEqualTo(
            "The query string has '%ff' at character 8, which is not UTF-8: percent-escapes must"
                + " spell the UTF-8 bytes of the text");
    // '/' written in two and three bytes
    assertThat(PercentEncoding.pathProblem("/a/%c0%af")).contains("'%c0' at character 4");
    assertThat(PercentEncoding.parametersProblem("The form body", "x=%e0%80%af", MAX))
        .startsWith("The form body has '%e0%80' at character 3, which is not UTF-8");
    // U+D800, a surrogate; U+110000; a sequence cut short by the end, and by another character
    assertThat(PercentEncoding.parametersProblem("q", "%ed%a0%80", MAX)).contains("not UTF-8");
    assertThat(PercentEncoding.parametersProblem("q", "%f4%90%80%80", MAX)).contains("not UTF-8");
    assertThat(PercentEncoding.parametersProblem("q", "a=%e2%82", MAX))
        .contains("'%e2%82' at character 3, which is not UTF-8");
    // Tomcat decodes each parameter alone: a sequence split by '&' is two broken ones.
    assertThat(PercentEncoding.parametersProblem("q", "a=%c3&b=%a9", MAX))
        .contains("'%c3' at character 3, which is not UTF-8");
  }

  @Test
  void controlCharactersAndUnassignedCodePointsAreRefusedAsTheFirewallRefusesThemInNames() {
    assertThat(PercentEncoding.parametersProblem("The query string", "offset=%00", MAX))
        .isEqualTo(
            "The query string has '%00' at character 8, which decodes to the control character"
                + " U+0000; parameters and paths must be text");
    assertThat(PercentEncoding.parametersProblem("q", "a=%0A", MAX)).contains("U+000A");
    assertThat(PercentEncoding.parametersProblem("q", "a=%C2%85", MAX)).contains("U+0085");
    assertThat(PercentEncoding.parametersProblem("q", "%CD%B8=1", MAX))
        .contains("'%CD%B8' at character 1, which decodes to U+0378, which Unicode does not");
    assertThat(PercentEncoding.pathProblem("/topics/%7f")).contains("control character U+007F");
    assertThat(PercentEncoding.characterProblem('a')).isNull();
    assertThat(PercentEncoding.characterProblem(0x1F4A9)).isNull();
  }

  @Test
  void unencodedNonAsciiIsRefused() {
    assertThat(PercentEncoding.parametersProblem("The form body", "a=é", MAX))
        .isEqualTo(
            "The form body has the character U+00E9 unencoded at character 3: anything outside"
                + " ASCII must be percent-encoded as UTF-8");
  }

  @Test
  void parametersAreReadAsTomcatReadsThemNamelessValuesAndTooManyAreRefused() {
    assertThat(PercentEncoding.parametersProblem("The query string", "a=1&=x", MAX))
        .isEqualTo(
            "The query string has a parameter without a name ('=x' at character 5): every value"
                + " needs a name before its '='");
    assertThat(PercentEncoding.parametersProblem("q", "=", MAX)).contains("without a name");
    String thousand = "a&".repeat(MAX - 1) + "a";
    assertThat(PercentEncoding.parametersProblem("q", thousand + "&&&", MAX)).isNull();
    assertThat(PercentEncoding.parametersProblem("The query string", thousand + "&b", MAX))
        .isEqualTo(
            "The query string has more than 1000 parameters, the most this broker reads"
                + " (server.tomcat.max-parameter-count)");
  }

  /**
   * The hand-written UTF-8 check agrees with the JDK's strict decoder (which Tomcat uses) on random
   * byte strings biased towards lead and continuation bytes.
   */
  @Test
  void utf8VerdictAgreesWithTheJdksStrictDecoderOnRandomBytes() {
    Random random = new Random(42);
    int[] interesting = {
      0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1,
      0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff
    };
    for (int round = 0; round < 200_000; round++) {
      byte[] bytes = new byte[1 + random.nextInt(5)];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] =
            (byte)
                (random.nextBoolean()
                    ? interesting[random.nextInt(interesting.length)]
                    : random.nextInt(256));
      }
      StringBuilder encoded = new StringBuilder();
      for (byte b : bytes) {
        encoded.append(String.format("%%%02X", b & 0xff));
      }
      String problem = PercentEncoding.pathProblem(encoded.toString());
      String expected = jdkVerdict(bytes);
      assertThat(problem == null ? "text" : problem.contains("not UTF-8") ? "not UTF-8" : "no text")
          .as(encoded.toString())
          .isEqualTo(expected);
    }
  }

  /** The first problem the JDK finds: text before the first ill-formed byte is checked first. */
  private static String jdkVerdict(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer decoded = CharBuffer.allocate(bytes.length * 2);
    CoderResult result = decoder.decode(ByteBuffer.wrap(bytes), decoded, true);
    if (!result.isError()) {
      result = decoder.flush(decoded);
    }
    boolean text =
        decoded
            .flip()
            .codePoints()
            .allMatch(c -> !Character.isISOControl(c) && Character.isDefined(c));
    return !text ? "no text" : result.isError() ? "not UTF-8" : "text";
  }
}
