package org.springframework.security.config.annotation.authentication.builders;

public class AuthenticationManagerBuilder {}
