package springfox.documentation.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.RUNTIME)
public @interface ApiIgnore {
    String value() default "";
}
