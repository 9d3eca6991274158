package org.springframework.boot.test.autoconfigure.actuate.metrics;

public @interface AutoConfigureMetrics {
}
