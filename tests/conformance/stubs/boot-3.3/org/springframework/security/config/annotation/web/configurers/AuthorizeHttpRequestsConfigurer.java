package org.springframework.security.config.annotation.web.configurers;

import org.springframework.http.HttpMethod;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.security.web.util.matcher.RequestMatcher;
public final class AuthorizeHttpRequestsConfigurer<H> extends AbstractHttpConfigurer<AuthorizeHttpRequestsConfigurer<H>, H> {
    public final class AuthorizationManagerRequestMatcherRegistry {

        public AuthorizedUrl requestMatchers(String... p) { return null; }
        public AuthorizedUrl requestMatchers(HttpMethod m, String... p) { return null; }
        public AuthorizedUrl requestMatchers(RequestMatcher... m) { return null; }
        public AuthorizedUrl anyRequest() { return null; }
        public H and() { return null; }
    }
    public class AuthorizedUrl {
        public AuthorizationManagerRequestMatcherRegistry permitAll() { return null; }
        public AuthorizationManagerRequestMatcherRegistry denyAll() { return null; }
        public AuthorizationManagerRequestMatcherRegistry authenticated() { return null; }
        public AuthorizationManagerRequestMatcherRegistry hasRole(String r) { return null; }
        public AuthorizationManagerRequestMatcherRegistry hasAnyRole(String... r) { return null; }
        public AuthorizationManagerRequestMatcherRegistry hasAuthority(String a) { return null; }
        public AuthorizationManagerRequestMatcherRegistry access(AuthorizationManager<RequestAuthorizationContext> m) { return null; }
    }
}
