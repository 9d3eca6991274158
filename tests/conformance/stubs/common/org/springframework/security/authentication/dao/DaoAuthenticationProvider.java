package org.springframework.security.authentication.dao;

import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.password.PasswordEncoder;

public class DaoAuthenticationProvider implements AuthenticationProvider {
    public DaoAuthenticationProvider() {}
    public void setUserDetailsService(UserDetailsService userDetailsService) {}
    public void setPasswordEncoder(PasswordEncoder passwordEncoder) {}
}
