package io.swagger.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiResponse {
    int code();
    String message();
    Class<?> response() default Void.class;
}
