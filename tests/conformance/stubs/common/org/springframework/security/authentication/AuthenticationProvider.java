package org.springframework.security.authentication;

public interface AuthenticationProvider {}
