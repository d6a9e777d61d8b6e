package dev.tributary.api;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;

/**
 * The answer to a JSON body Jackson could not read, in words for the client: what is wrong and
 * where. Jackson's own messages name its classes and features ({@code DeserializationFeature...},
 * {@code StreamReadConstraints.getMaxNestingDepth()}) and its source-location boilerplate, and its
 * exceptions carry no reason but that text; so the reason is recognised from the message's opening
 * words, and a message not recognised becomes "not valid JSON" with its position, never passed on.
 *
 * <p>Every JSON body (produce, consumer and admin requests alike) is read by the application's
 * {@code JsonMapper}, whose nesting depth is bounded at {@code tributary.max-json-nesting-depth}
 * (64 by default; see config/LimitsConfiguration); Jackson stops at the first level too deep,
 * before building the tree.
 */
final class JsonBodyErrors {
  private JsonBodyErrors() {}

  /** A character the parser did not expect; Jackson names it by its code. */
  private static final Pattern CHARACTER =
      Pattern.compile("^(Unexpected|Illegal)( unquoted)? character .*?code (\\d+)");

  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");

  /** "Document nesting depth (65) exceeds the maximum allowed (64, from ...)" and the like. */
  private static final Pattern LIMIT =
      Pattern.compile("^(.+?) \\(\\d+\\) exceeds the maximum allowed \\((\\d+)");

  /** 400 40004 past a parsing limit, else 400 40001 "Malformed JSON body: ...". */
  static RestException of(JacksonException e) {
    if (e instanceof StreamConstraintsException constraintBroken) {
      return constraintBroken(constraintBroken);
    }
    return new RestException(HttpStatus.BAD_REQUEST, 40001, "Malformed JSON body: " + describe(e));
  }

  /** 400 40004, naming the limit: the nesting depth, or a number, string or name too long. */
  static RestException constraintBroken(StreamConstraintsException e) {
    Matcher limit = LIMIT.matcher(String.valueOf(e.getOriginalMessage()));
    String message = "The JSON body breaks a parsing limit";
    if (limit.find()) {
      String max = limit.group(2);
      message =
          switch (limit.group(1)) {
            case "Document nesting depth" ->
                "The JSON body nests deeper than "
                    + max
                    + " levels (tributary.max-json-nesting-depth)";
            case "Number value length" ->
                "The JSON body has a number longer than " + max + " digits";
            case "String value length" ->
                "The JSON body has a string longer than " + max + " characters";
            case "Name length" ->
                "The JSON body has a field name longer than " + max + " characters";
            case "Document length" -> "The JSON body is longer than " + max + " bytes";
            case "Token count" -> "The JSON body has more than " + max + " tokens";
            default -> message;
          };
    }
    return new RestException(HttpStatus.BAD_REQUEST, 40004, message);
  }

  /**
   * What is wrong with the body and where, e.g. "unexpected character '}' at line 1, column 8";
   * without parser internals.
   */
  static String describe(JacksonException e) {
    if (e instanceof UnexpectedEndOfInputException) {
      return "the body ends before its JSON value does";
    }
    return reason(String.valueOf(e.getOriginalMessage())) + where(e.getLocation());
  }

  private static String reason(String original) {
    Matcher character = CHARACTER.matcher(original);
    if (character.find()) {
      int code = Integer.parseInt(character.group(3));
      String what =
          Character.isISOControl(code)
              ? String.format(Locale.ROOT, "control character U+%04X", code)
              : "character '" + (char) code + "'";
      if (character.group(2) != null) {
        return "unescaped " + what + " in a string";
      }
      return "unexpected " + what + (original.contains("numeric value") ? " in a number" : "");
    }
    if (original.startsWith("Unrecognized token")) {
      return "unrecognized token" + quoted(original);
    }
    if (original.startsWith("Unexpected close marker")) {
      return "unexpected closing bracket" + quoted(original);
    }
    if (original.startsWith("Non-standard token")) {
      return "non-standard token" + quoted(original) + ", not JSON";
    }
    if (original.startsWith("Unrecognized character escape")) {
      return "unknown escape in a string";
    }
    if (original.startsWith("Invalid numeric value")) {
      return "invalid number";
    }
    if (original.startsWith("Invalid UTF-8")) {
      return "the body is not UTF-8";
    }
    if (original.startsWith("Trailing token")) {
      return "more content after the JSON value";
    }
    return "not valid JSON";
  }

  /** " 'x'": the first quoted part of Jackson's message, the token or character it stopped at. */
  private static String quoted(String original) {
    Matcher quoted = QUOTED.matcher(original);
    return quoted.find() ? " '" + quoted.group(1) + "'" : "";
  }

  static String where(TokenStreamLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }
}
