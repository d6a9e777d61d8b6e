package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every way a body can fail to parse is answered in plain words with its position, never with the
 * parser's class names, features or source-location boilerplate; each parsing limit is named with
 * its value.
 */
class JsonBodyErrorsTest {
  private static final List<String> INTERNALS =
      List.of("streamread", "jackson", "feature", "()", "exception", "source:", "redacted", "`");

  private static final JsonMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(4)
                          .maxNumberLength(5)
                          .maxStringLength(5)
                          .maxNameLength(5)
                          .build())
                  .build())
          .build();

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          {'a':1,}          | 40001 | Malformed JSON body: unexpected character '}' at line 1, column 8
          {'a' 1}           | 40001 | Malformed JSON body: unexpected character '1' at line 1, column 6
          {'a':1]           | 40001 | Malformed JSON body: unexpected closing bracket ']' at line 1, column 7
          [1}               | 40001 | Malformed JSON body: unexpected closing bracket '}' at line 1, column 3
          {'a':NaN}         | 40001 | Malformed JSON body: non-standard token 'NaN', not JSON at line 1, column 9
          {'a':01}          | 40001 | Malformed JSON body: invalid number at line 1, column 7
          {'a':-}           | 40001 | Malformed JSON body: unexpected character '}' in a number at line 1, column 7
          {'a':tru}         | 40001 | Malformed JSON body: unrecognized token 'tru' at line 1, column 6
          {/*c*/}           | 40001 | Malformed JSON body: unexpected character '/' at line 1, column 2
          {'a':'\\x'}       | 40001 | Malformed JSON body: unknown escape in a string at line 1, column 8
          {'a':'\u0001'}    | 40001 | Malformed JSON body: unescaped control character U+0001 in a string at line 1, column 7
          {'a':1} {}        | 40001 | Malformed JSON body: more content after the JSON value at line 1, column 9
          [1,2              | 40001 | Malformed JSON body: the body ends before its JSON value does
          {'a':             | 40001 | Malformed JSON body: the body ends before its JSON value does
          [[[[[]]]]]        | 40004 | The JSON body nests deeper than 4 levels (tributary.max-json-nesting-depth)
          [123456]          | 40004 | The JSON body has a number longer than 5 digits
          ['abcdef']        | 40004 | The JSON body has a string longer than 5 characters
          {'abcdef':1}      | 40004 | The JSON body has a field name longer than 5 characters
          """)
  void aBodyThatDoesNotParseIsDescribedInPlainWords(String body, int errorCode, String message) {
    RestException answer = answerTo(body.replace('\'', '"').getBytes(StandardCharsets.UTF_8));

    assertThat(answer.errorCode).isEqualTo(errorCode);
    assertThat(answer.getMessage()).isEqualTo(message);
    assertNoInternals(answer.getMessage());
  }

  @Test
  void aBodyThatIsNotUtf8IsSaidToBeSo() {
    RestException answer = answerTo("{\"a\":\"\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1));

    assertThat(answer.errorCode).isEqualTo(40001);
    assertThat(answer.getMessage()).startsWith("Malformed JSON body: the body is not UTF-8");
    assertNoInternals(answer.getMessage());
  }

  private static RestException answerTo(byte[] body) {
    JacksonException e = catchThrowableOfType(JacksonException.class, () -> JSON.readTree(body));
    assertThat(e).as("%s should not parse", new String(body, StandardCharsets.UTF_8)).isNotNull();
    return JsonBodyErrors.of(e);
  }

  private static void assertNoInternals(String message) {
    String lower = message.toLowerCase(Locale.ROOT);
    assertThat(INTERNALS).as(message).noneMatch(lower::contains);
  }
}
