package org.junit.jupiter.api.extension;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME) @Target({ElementType.TYPE, ElementType.METHOD})
public @interface Extensions { ExtendWith[] value(); }
