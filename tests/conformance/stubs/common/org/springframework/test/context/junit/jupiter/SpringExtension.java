package org.springframework.test.context.junit.jupiter;

import org.junit.jupiter.api.extension.Extension;

public class SpringExtension implements Extension {}
