package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiOperation {
    String value();
    String notes() default "";
    String[] tags() default "";
    String nickname() default "";
    Class<?> response() default Void.class;
    boolean hidden() default false;
}
