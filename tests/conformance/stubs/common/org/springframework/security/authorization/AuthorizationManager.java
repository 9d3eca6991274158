package org.springframework.security.authorization;

public interface AuthorizationManager<T> {}
