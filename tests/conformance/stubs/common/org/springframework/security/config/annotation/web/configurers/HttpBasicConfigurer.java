package org.springframework.security.config.annotation.web.configurers;

public final class HttpBasicConfigurer<H> extends AbstractHttpConfigurer<HttpBasicConfigurer<H>, H> {
    public HttpBasicConfigurer<H> loginPage(String page) { return this; }
    public HttpBasicConfigurer<H> permitAll() { return this; }
    public HttpBasicConfigurer<H> logoutSuccessUrl(String url) { return this; }
}
