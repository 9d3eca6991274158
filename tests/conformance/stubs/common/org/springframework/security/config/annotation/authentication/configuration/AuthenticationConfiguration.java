package org.springframework.security.config.annotation.authentication.configuration;

public class AuthenticationConfiguration {
    public org.springframework.security.authentication.AuthenticationManager getAuthenticationManager() throws Exception { return null; }
}
