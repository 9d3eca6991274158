package org.junit;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME) @Target({ElementType.FIELD, ElementType.METHOD})
public @interface Rule {}
