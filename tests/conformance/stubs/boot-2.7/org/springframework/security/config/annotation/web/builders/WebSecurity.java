package org.springframework.security.config.annotation.web.builders;

public final class WebSecurity {
    public final class IgnoredRequestConfigurer {
        public IgnoredRequestConfigurer antMatchers(String... p) { return this; }
    }
    public IgnoredRequestConfigurer ignoring() { return null; }
}
