package org.springframework.security.config.annotation.web.configurers.oauth2.server.resource;

public final class OAuth2ResourceServerConfigurer<H> extends org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer<OAuth2ResourceServerConfigurer<H>, H> {
    public final class JwtConfigurer {
        public OAuth2ResourceServerConfigurer<H> and() { return OAuth2ResourceServerConfigurer.this; }
    }
    public JwtConfigurer jwt() { return null; }
    public OAuth2ResourceServerConfigurer<H> jwt(org.springframework.security.config.Customizer<JwtConfigurer> c) { return this; }
}
