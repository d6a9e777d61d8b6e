package dev.tributary.api;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Adds the converter for record reads' {@link RenderedJson} bodies ahead of Spring's defaults. */
@Configuration
class ApiMessageConverters implements WebMvcConfigurer {
  @Override
  public void configureMessageConverters(HttpMessageConverters.ServerBuilder builder) {
    builder.addCustomConverter(new RenderedJsonConverter());
  }
}
