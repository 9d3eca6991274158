package org.springframework.security.config.annotation.web.configurers;

public final class CsrfConfigurer<H> extends AbstractHttpConfigurer<CsrfConfigurer<H>, H> {
    public CsrfConfigurer<H> ignoringRequestMatchers(String... patterns) { return this; }
}
