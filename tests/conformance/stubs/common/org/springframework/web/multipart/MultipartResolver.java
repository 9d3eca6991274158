package org.springframework.web.multipart;

public interface MultipartResolver {
}
