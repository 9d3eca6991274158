package org.springframework.boot.test.autoconfigure.actuate.observability;

public @interface AutoConfigureObservability {
    boolean metrics() default true;

    boolean tracing() default true;
}
