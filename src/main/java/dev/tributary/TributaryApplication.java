package dev.tributary;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** One Tributary broker process. Wiring lives in {@code dev.tributary.config}. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TributaryApplication {
  public static void main(String[] args) {
    SpringApplication.run(TributaryApplication.class, args);
  }
}
