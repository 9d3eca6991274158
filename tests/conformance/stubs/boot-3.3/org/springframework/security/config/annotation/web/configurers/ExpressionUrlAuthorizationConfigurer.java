package org.springframework.security.config.annotation.web.configurers;

import org.springframework.http.HttpMethod;
import org.springframework.security.web.util.matcher.RequestMatcher;
@Deprecated
public final class ExpressionUrlAuthorizationConfigurer<H> extends AbstractHttpConfigurer<ExpressionUrlAuthorizationConfigurer<H>, H> {
    public class ExpressionInterceptUrlRegistry {
        public AuthorizedUrl requestMatchers(String... p) { return null; }
        public AuthorizedUrl requestMatchers(HttpMethod m, String... p) { return null; }
        public AuthorizedUrl requestMatchers(RequestMatcher... m) { return null; }
        public AuthorizedUrl anyRequest() { return null; }
        public H and() { return null; }
    }
    public class AuthorizedUrl {
        public ExpressionInterceptUrlRegistry permitAll() { return null; }
        public ExpressionInterceptUrlRegistry denyAll() { return null; }
        public ExpressionInterceptUrlRegistry authenticated() { return null; }
        public ExpressionInterceptUrlRegistry hasRole(String r) { return null; }
        public ExpressionInterceptUrlRegistry hasAnyRole(String... r) { return null; }
        public ExpressionInterceptUrlRegistry hasAuthority(String a) { return null; }
        public ExpressionInterceptUrlRegistry access(String expression) { return null; }
        public ExpressionInterceptUrlRegistry hasIpAddress(String address) { return null; }
    }
}
