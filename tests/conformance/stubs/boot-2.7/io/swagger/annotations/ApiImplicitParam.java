package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiImplicitParam {
    String name() default "";
    String value() default "";
    boolean required() default false;
    String dataType() default "";
    String paramType() default "";
    String example() default "";
}
