package org.springframework.security.provisioning;

public class InMemoryUserDetailsManager {
    public InMemoryUserDetailsManager(org.springframework.security.core.userdetails.UserDetails... users) {}
}
