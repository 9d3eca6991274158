package org.junit.jupiter.api.extension;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME) @Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(Extensions.class)
public @interface ExtendWith { Class<? extends Extension>[] value(); }
