package org.springframework.security.config.annotation.web.configurers;

public final class LogoutConfigurer<H> extends AbstractHttpConfigurer<LogoutConfigurer<H>, H> {
    public LogoutConfigurer<H> loginPage(String page) { return this; }
    public LogoutConfigurer<H> permitAll() { return this; }
    public LogoutConfigurer<H> logoutSuccessUrl(String url) { return this; }
}
