package org.springframework.web.servlet.config.annotation;

public abstract class WebMvcConfigurerAdapter implements WebMvcConfigurer {
    public void configurePathMatch(PathMatchConfigurer configurer) {}

    public void addInterceptors(InterceptorRegistry registry) {}
}
