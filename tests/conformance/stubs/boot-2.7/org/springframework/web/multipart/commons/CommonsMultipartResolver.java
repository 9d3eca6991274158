package org.springframework.web.multipart.commons;

public class CommonsMultipartResolver implements org.springframework.web.multipart.MultipartResolver {
    public CommonsMultipartResolver() { }
    public void setMaxUploadSize(long maxUploadSize) { }
    public void setMaxUploadSizePerFile(long maxUploadSizePerFile) { }
    public void setMaxInMemorySize(int maxInMemorySize) { }
    public void setDefaultEncoding(String defaultEncoding) { }
    public void setResolveLazily(boolean resolveLazily) { }
}
