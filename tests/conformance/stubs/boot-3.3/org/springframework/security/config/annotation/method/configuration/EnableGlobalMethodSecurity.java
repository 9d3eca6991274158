package org.springframework.security.config.annotation.method.configuration;

@Deprecated
public @interface EnableGlobalMethodSecurity {
    boolean prePostEnabled() default false;
    boolean securedEnabled() default false;
    boolean jsr250Enabled() default false;
}
