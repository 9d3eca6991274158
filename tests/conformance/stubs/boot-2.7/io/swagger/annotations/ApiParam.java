package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiParam {
    String name() default "";
    String value() default "";
    boolean required() default false;
    String example() default "";
    boolean hidden() default false;
    String allowableValues() default "";
    boolean allowEmptyValue() default false;
}
