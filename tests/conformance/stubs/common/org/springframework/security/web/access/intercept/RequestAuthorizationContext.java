package org.springframework.security.web.access.intercept;

public final class RequestAuthorizationContext {}
