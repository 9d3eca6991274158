package io.swagger.v3.oas.annotations.media;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface Schema {
    String name() default "";
    String description() default "";
    boolean required() default false;
    String example() default "";
    boolean hidden() default false;
}
