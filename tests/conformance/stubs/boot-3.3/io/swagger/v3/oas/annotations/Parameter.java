package io.swagger.v3.oas.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface Parameter {
    String name() default "";
    io.swagger.v3.oas.annotations.enums.ParameterIn in() default io.swagger.v3.oas.annotations.enums.ParameterIn.DEFAULT;
    String description() default "";
    boolean required() default false;
    String example() default "";
    boolean hidden() default false;
    boolean allowEmptyValue() default false;
}
