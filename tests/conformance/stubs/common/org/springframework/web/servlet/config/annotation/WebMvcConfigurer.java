package org.springframework.web.servlet.config.annotation;

public interface WebMvcConfigurer {
    default void configurePathMatch(PathMatchConfigurer configurer) {}

    default void addInterceptors(InterceptorRegistry registry) {}
}
