package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiModelProperty {
    String value() default "";
    String name() default "";
    boolean required() default false;
    String example() default "";
    boolean hidden() default false;
    int position() default 0;
    String allowableValues() default "";
}
