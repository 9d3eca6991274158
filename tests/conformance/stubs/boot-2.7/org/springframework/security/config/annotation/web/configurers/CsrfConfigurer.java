package org.springframework.security.config.annotation.web.configurers;

public final class CsrfConfigurer<H> extends AbstractHttpConfigurer<CsrfConfigurer<H>, H> {
    public CsrfConfigurer<H> ignoringAntMatchers(String... patterns) { return this; }
}
