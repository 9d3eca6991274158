package org.springframework.http;

public final class HttpMethod {
    public static final HttpMethod GET = null;
    public static final HttpMethod POST = null;
    public static final HttpMethod PUT = null;
    public static final HttpMethod DELETE = null;

    public static HttpMethod valueOf(String method) { return null; }
}
