package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface Api {
    String value() default "";
    String[] tags() default "";
    @Deprecated String description() default "";
}
