package org.springframework.security.config.annotation.web.configuration;

import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.config.annotation.authentication.builders.AuthenticationManagerBuilder;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.builders.WebSecurity;
public abstract class WebSecurityConfigurerAdapter {
    protected void configure(HttpSecurity http) throws Exception {}
    public void configure(WebSecurity web) throws Exception {}
    protected void configure(AuthenticationManagerBuilder auth) throws Exception {}
    public AuthenticationManager authenticationManagerBean() throws Exception { return null; }
}
