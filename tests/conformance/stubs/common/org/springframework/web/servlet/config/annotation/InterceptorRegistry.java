package org.springframework.web.servlet.config.annotation;

public class InterceptorRegistry {
}
