package org.springframework.web.servlet.config.annotation;

/** setUseTrailingSlashMatch and setUseSuffixPatternMatch: deprecated in 6.0, still there. */
public class PathMatchConfigurer {
    public PathMatchConfigurer setUseTrailingSlashMatch(Boolean trailingSlashMatch) { return this; }
    public PathMatchConfigurer setUseSuffixPatternMatch(Boolean suffixPatternMatch) { return this; }
}
