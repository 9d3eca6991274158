package io.swagger.v3.oas.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface Operation {
    String summary() default "";
    String description() default "";
    String[] tags() default {};
    String operationId() default "";
    boolean hidden() default false;
}
