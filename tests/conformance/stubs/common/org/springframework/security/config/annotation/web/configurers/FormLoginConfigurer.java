package org.springframework.security.config.annotation.web.configurers;

public final class FormLoginConfigurer<H> extends AbstractHttpConfigurer<FormLoginConfigurer<H>, H> {
    public FormLoginConfigurer<H> loginPage(String page) { return this; }
    public FormLoginConfigurer<H> permitAll() { return this; }
    public FormLoginConfigurer<H> logoutSuccessUrl(String url) { return this; }
}
