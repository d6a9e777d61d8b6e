package dev.tributary.config;

/**
 * The rule every percent-encoded part of a request keeps before anything decodes it (the path, the
 * query string, a form body; docs/security.md "Hostile input"), and the words a client is told when
 * it breaks it. Plain Java, so the rule is tested without a server.
 *
 * <p>The rule: every {@code %} starts an escape of two hex digits; the bytes spell UTF-8 as RFC
 * 3629 defines it (no overlong forms, no surrogates, nothing past U+10FFFF: the JDK's decoder, and
 * so Tomcat's, refuses exactly these); and the text has no control character (U+0000 to U+001F,
 * U+007F to U+009F) and no code point Unicode leaves unassigned. The last two are Spring Security's
 * firewall's rule for parameter names, which it enforces by throwing from {@code getParameter};
 * here they hold for values too. A query string or form body is also read the way Tomcat reads
 * parameters: pairs separated by {@code &} (empty ones skipped), a name before every {@code =}, and
 * at most {@code server.tomcat.max-parameter-count} pairs.
 */
final class PercentEncoding {
  private PercentEncoding() {}

  /** What is wrong with a request path as sent (still encoded), or null if it decodes to text. */
  static String pathProblem(String rawPath) {
    return rawPath == null ? null : textProblem("The request path", rawPath, 0, rawPath.length());
  }

  /**
   * What is wrong with a query string or form body as sent, or null if Tomcat will read it into
   * parameters that are all text.
   *
   * @param what how the message names it: "The query string", "The form body"
   */
  static String parametersProblem(String what, String raw, int maxParameterCount) {
    if (raw == null) {
      return null;
    }
    int count = 0;
    for (int start = 0; start < raw.length(); ) {
      int end = raw.indexOf('&', start);
      end = end < 0 ? raw.length() : end;
      if (end > start) {
        if (raw.charAt(start) == '=') {
          return what
              + " has a parameter without a name ('"
              + abbreviate(raw.substring(start, end))
              + "' at character "
              + (start + 1)
              + "): every value needs a name before its '='";
        }
        if (++count > maxParameterCount) {
          return what
              + " has more than "
              + maxParameterCount
              + " parameters, the most this broker reads (server.tomcat.max-parameter-count)";
        }
        String problem = textProblem(what, raw, start, end);
        if (problem != null) {
          return problem;
        }
      }
      start = end + 1;
    }
    return null;
  }

  /**
   * Why {@code codePoint} may not appear in decoded text, as the end of a sentence ("the control
   * character U+0000"), or null if it may.
   */
  static String characterProblem(int codePoint) {
    if (Character.isISOControl(codePoint)) {
      return "the control character " + unicode(codePoint);
    }
    if (!Character.isDefined(codePoint)) {
      return unicode(codePoint) + ", which Unicode does not assign";
    }
    return null;
  }

  /** The first problem in {@code raw[from, to)}: escapes, then UTF-8, then the characters. */
  private static String textProblem(String what, String raw, int from, int to) {
    byte[] bytes = new byte[to - from];
    int[] sourceAt = new int[to - from]; // where in raw each byte came from
    int n = 0;
    for (int i = from; i < to; ) {
      char c = raw.charAt(i);
      if (c == '%') {
        int high = i + 1 < to ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int low = i + 2 < to ? Character.digit(raw.charAt(i + 2), 16) : -1;
        if (high < 0 || low < 0) {
          return what
              + " has '"
              + raw.substring(i, Math.min(i + 3, to))
              + "' at character "
              + (i + 1)
              + ", which is not a percent-escape: '%' must be followed by two hex digits";
        }
        bytes[n] = (byte) (high << 4 | low);
        sourceAt[n++] = i;
        i += 3;
      } else if (c >= 0x80) {
        // Tomcat refuses raw non-ASCII in the request line; a form body could still carry it.
        return what
            + " has the character "
            + unicode(c)
            + " unencoded at character "
            + (i + 1)
            + ": anything outside ASCII must be percent-encoded as UTF-8";
      } else {
        bytes[n] = (byte) c;
        sourceAt[n++] = i;
        i++;
      }
    }
    for (int k = 0; k < n; ) {
      int length = utf8Length(bytes, k, n);
      if (length < 0) {
        int last = Math.min(k - length, n) - 1; // the byte that broke the sequence
        return what
            + " has '"
            + raw.substring(sourceAt[k], endOf(raw, sourceAt[last]))
            + "' at character "
            + (sourceAt[k] + 1)
            + ", which is not UTF-8: percent-escapes must spell the UTF-8 bytes of the text";
      }
      int codePoint = codePoint(bytes, k, length);
      String problem = characterProblem(codePoint);
      if (problem != null) {
        return what
            + " has '"
            + raw.substring(sourceAt[k], endOf(raw, sourceAt[k + length - 1]))
            + "' at character "
            + (sourceAt[k] + 1)
            + ", which decodes to "
            + problem
            + "; parameters and paths must be text";
      }
      k += length;
    }
    return null;
  }

  /**
   * The length of the well-formed UTF-8 sequence at {@code bytes[k]} (Unicode's table 3-7 of
   * well-formed byte sequences), or minus the number of bytes read up to and including the one that
   * makes it ill-formed.
   */
  private static int utf8Length(byte[] bytes, int k, int n) {
    int lead = bytes[k] & 0xff;
    int length;
    int secondMin = 0x80;
    int secondMax = 0xbf;
    if (lead < 0x80) {
      return 1;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      secondMin = lead == 0xe0 ? 0xa0 : 0x80; // shorter forms are overlong
      secondMax = lead == 0xed ? 0x9f : 0xbf; // U+D800 to U+DFFF are surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      secondMin = lead == 0xf0 ? 0x90 : 0x80; // overlong
      secondMax = lead == 0xf4 ? 0x8f : 0xbf; // past U+10FFFF
    } else {
      return -1; // a continuation byte, an overlong lead (C0, C1) or past U+10FFFF (F5 to FF)
    }
    for (int j = 1; j < length; j++) {
      if (k + j >= n) {
        return -(j + 1); // cut short; the message shows what there is
      }
      int b = bytes[k + j] & 0xff;
      if (b < (j == 1 ? secondMin : 0x80) || b > (j == 1 ? secondMax : 0xbf)) {
        return -(j + 1);
      }
    }
    return length;
  }

  private static int codePoint(byte[] bytes, int k, int length) {
    int lead = bytes[k] & 0xff;
    int codePoint = length == 1 ? lead : lead & (0x7f >> length);
    for (int j = 1; j < length; j++) {
      codePoint = codePoint << 6 | (bytes[k + j] & 0x3f);
    }
    return codePoint;
  }

  /** The end (exclusive) in raw of the byte that starts at {@code at}: an escape is 3 chars. */
  private static int endOf(String raw, int at) {
    return raw.charAt(at) == '%' ? at + 3 : at + 1;
  }

  private static String unicode(int codePoint) {
    return String.format("U+%04X", codePoint);
  }

  private static String abbreviate(String s) {
    return s.length() <= 20 ? s : s.substring(0, 20) + "...";
  }
}
