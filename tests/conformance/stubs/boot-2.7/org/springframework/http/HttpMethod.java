package org.springframework.http;

public enum HttpMethod {
    GET, POST, PUT, DELETE;

    public static HttpMethod resolve(String method) { return null; }
}
