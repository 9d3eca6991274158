package org.springframework.security.web.access.expression;

public final class WebExpressionAuthorizationManager implements org.springframework.security.authorization.AuthorizationManager<org.springframework.security.web.access.intercept.RequestAuthorizationContext> {
    public WebExpressionAuthorizationManager(String expression) {}
}
