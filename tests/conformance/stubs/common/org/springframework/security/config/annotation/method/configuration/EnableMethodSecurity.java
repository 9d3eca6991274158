package org.springframework.security.config.annotation.method.configuration;

public @interface EnableMethodSecurity {
    boolean prePostEnabled() default true;
    boolean securedEnabled() default false;
    boolean jsr250Enabled() default false;
    boolean proxyTargetClass() default false;
}
