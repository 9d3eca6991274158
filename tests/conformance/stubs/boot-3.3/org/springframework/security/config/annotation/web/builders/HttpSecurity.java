package org.springframework.security.config.annotation.web.builders;

import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.configurers.*;
import org.springframework.security.config.annotation.web.configurers.oauth2.server.resource.OAuth2ResourceServerConfigurer;
import org.springframework.security.web.DefaultSecurityFilterChain;

public final class HttpSecurity {
    public final class RequestMatcherConfigurer {
        public RequestMatcherConfigurer requestMatchers(String... p) { return this; }
        public HttpSecurity and() { return HttpSecurity.this; }
    }
    public HttpSecurity securityMatcher(String... patterns) { return this; }
    public RequestMatcherConfigurer securityMatchers() { return null; }

    public CsrfConfigurer<HttpSecurity> csrf() throws Exception { return null; }
    public HttpSecurity csrf(Customizer<CsrfConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public FormLoginConfigurer<HttpSecurity> formLogin() throws Exception { return null; }
    public HttpSecurity formLogin(Customizer<FormLoginConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public LogoutConfigurer<HttpSecurity> logout() throws Exception { return null; }
    public HttpSecurity logout(Customizer<LogoutConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public HttpBasicConfigurer<HttpSecurity> httpBasic() throws Exception { return null; }
    public HttpSecurity httpBasic(Customizer<HttpBasicConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public SessionManagementConfigurer<HttpSecurity> sessionManagement() throws Exception { return null; }
    public HttpSecurity sessionManagement(Customizer<SessionManagementConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public OAuth2ResourceServerConfigurer<HttpSecurity> oauth2ResourceServer() throws Exception { return null; }
    public HttpSecurity oauth2ResourceServer(Customizer<OAuth2ResourceServerConfigurer<HttpSecurity>> c) throws Exception { return this; }
    public ExpressionUrlAuthorizationConfigurer<HttpSecurity>.ExpressionInterceptUrlRegistry authorizeRequests() throws Exception { return null; }
    public HttpSecurity authorizeRequests(Customizer<ExpressionUrlAuthorizationConfigurer<HttpSecurity>.ExpressionInterceptUrlRegistry> c) throws Exception { return this; }
    public AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizationManagerRequestMatcherRegistry authorizeHttpRequests() throws Exception { return null; }
    public HttpSecurity authorizeHttpRequests(Customizer<AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizationManagerRequestMatcherRegistry> c) throws Exception { return this; }
    public DefaultSecurityFilterChain build() throws Exception { return null; }
}
