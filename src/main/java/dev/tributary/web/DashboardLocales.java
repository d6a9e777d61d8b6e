package dev.tributary.web;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Locale;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.LocaleResolver;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.i18n.LocaleChangeInterceptor;
import org.springframework.web.util.WebUtils;

/**
 * The dashboard's two languages, English and Simplified Chinese (docs/adr/0022). The page follows
 * the browser's {@code Accept-Language} until the reader picks one with the switch ({@code
 * ?lang=zh|en}), which a cookie then remembers. Anything else is English: a {@code fr} browser, a
 * forged cookie, {@code ?lang=xx}. Chinese of any region gets the Simplified catalogue (the only
 * one there is). The API's error messages stay English, as Kafka's do.
 */
@Configuration
class DashboardLocales implements WebMvcConfigurer {
  static final String COOKIE = "tributary-lang";
  static final String PARAM = "lang";

  /** Set by {@link Resolver#setLocale} so the request that changed the language renders in it. */
  private static final String CHOSEN = DashboardLocales.class.getName() + ".CHOSEN";

  /** {@code zh} for any Chinese, else {@code en}: the only two catalogues. */
  static Locale supported(Locale requested) {
    return requested != null && "zh".equals(requested.getLanguage())
        ? Locale.CHINESE
        : Locale.ENGLISH;
  }

  /**
   * The first of the browser's languages (in its order of preference) that the page speaks, else
   * English: {@code fr, zh-CN} is Chinese, {@code en-GB, zh} English.
   */
  static Locale fromAcceptLanguage(Enumeration<Locale> preferred) {
    for (Locale locale : Collections.list(preferred)) {
      if ("zh".equals(locale.getLanguage()) || "en".equals(locale.getLanguage())) {
        return supported(locale);
      }
    }
    return Locale.ENGLISH;
  }

  /** Named as the DispatcherServlet looks it up; Boot's own resolver then stands aside. */
  @Bean(name = DispatcherServlet.LOCALE_RESOLVER_BEAN_NAME)
  LocaleResolver localeResolver() {
    return new Resolver();
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    LocaleChangeInterceptor change = new LocaleChangeInterceptor();
    change.setParamName(PARAM);
    change.setIgnoreInvalidLocale(true);
    // The two pages only: the API ignores ?lang (its messages are English).
    registry.addInterceptor(change).addPathPatterns("/", "/login");
  }

  /** The cookie if there is one, else {@code Accept-Language}; both narrowed to en or zh. */
  static final class Resolver implements LocaleResolver {
    @Override
    public Locale resolveLocale(HttpServletRequest request) {
      if (request.getAttribute(CHOSEN) instanceof Locale chosen) {
        return chosen;
      }
      Cookie cookie = WebUtils.getCookie(request, COOKIE);
      if (cookie != null && !cookie.getValue().isBlank()) {
        return supported(Locale.forLanguageTag(cookie.getValue()));
      }
      return fromAcceptLanguage(request.getLocales());
    }

    @Override
    public void setLocale(HttpServletRequest request, HttpServletResponse response, Locale locale) {
      Locale chosen = locale == null ? null : supported(locale);
      ResponseCookie cookie =
          ResponseCookie.from(COOKIE, chosen == null ? "" : chosen.getLanguage())
              .path("/")
              .sameSite("Lax")
              .secure(request.isSecure())
              .maxAge(chosen == null ? Duration.ZERO : Duration.ofDays(365))
              .build();
      if (response != null) {
        response.addHeader(HttpHeaders.SET_COOKIE, cookie.toString());
      }
      if (chosen == null) {
        request.removeAttribute(CHOSEN);
      } else {
        request.setAttribute(CHOSEN, chosen);
      }
    }
  }
}
