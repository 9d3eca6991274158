package org.springframework.security.core.userdetails;

public interface UserDetails {}
