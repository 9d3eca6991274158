package org.springframework.http;

public interface HttpStatusCode {
    int value();
    boolean is4xxClientError();
}
