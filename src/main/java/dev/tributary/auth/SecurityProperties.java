package dev.tributary.auth;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tributary.security.*}: client authentication and authorisation (docs/security.md).
 *
 * @param enabled on unless turned off; {@code ./tributary start} turns it off for its loopback demo
 * @param superUsers principals allowed everything, as Kafka's {@code super.users}
 * @param bootstrapApiKey {@code <keyId>:<sha256 of the secret, hex>}: a key that authenticates as
 *     {@code bootstrapPrincipal} without being in the metadata log, so the first admin can get in
 *     (make one with {@code ./tributary api-key}); empty for none
 * @param bootstrapPrincipal whom the bootstrap key authenticates as
 * @param dashboardSessionMinutes how long a dashboard sign-in lasts
 */
@ConfigurationProperties("tributary.security")
public record SecurityProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("User:admin") List<String> superUsers,
    @DefaultValue("") String bootstrapApiKey,
    @DefaultValue("User:admin") String bootstrapPrincipal,
    @DefaultValue("480") long dashboardSessionMinutes) {}
