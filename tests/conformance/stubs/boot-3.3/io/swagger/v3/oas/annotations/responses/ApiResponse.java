package io.swagger.v3.oas.annotations.responses;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiResponse {
    String description() default "";
    String responseCode() default "default";
}
