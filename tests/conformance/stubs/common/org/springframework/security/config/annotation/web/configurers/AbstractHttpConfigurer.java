package org.springframework.security.config.annotation.web.configurers;

public abstract class AbstractHttpConfigurer<T, B> {
    public B disable() { return null; }
    public B and() { return null; }
}
