package org.springframework.boot.test.system;

import org.junit.jupiter.api.extension.Extension;

public class OutputCaptureExtension implements Extension {}
