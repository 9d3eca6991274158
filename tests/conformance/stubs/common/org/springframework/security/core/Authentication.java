package org.springframework.security.core;

public interface Authentication {
    String getName();
}
