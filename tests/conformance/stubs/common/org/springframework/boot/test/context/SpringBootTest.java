package org.springframework.boot.test.context;

import java.lang.annotation.*;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.junit.jupiter.SpringExtension;

@Retention(RetentionPolicy.RUNTIME) @Target(ElementType.TYPE)
@ExtendWith(SpringExtension.class)
public @interface SpringBootTest {}
