package org.springframework.web.multipart.support;

public class StandardServletMultipartResolver implements org.springframework.web.multipart.MultipartResolver {
    public StandardServletMultipartResolver() { }
    public void setResolveLazily(boolean resolveLazily) { }
    public void setStrictServletCompliance(boolean strictServletCompliance) { }
}
