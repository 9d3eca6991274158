package org.springframework.context.annotation;

public @interface Bean {}
