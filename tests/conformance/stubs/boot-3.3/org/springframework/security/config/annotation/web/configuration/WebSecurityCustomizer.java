package org.springframework.security.config.annotation.web.configuration;

public interface WebSecurityCustomizer {
    void customize(org.springframework.security.config.annotation.web.builders.WebSecurity web);
}
