package org.springframework.test.context;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME) @Target(ElementType.TYPE)
public @interface ContextConfiguration { Class<?>[] classes() default {}; }
