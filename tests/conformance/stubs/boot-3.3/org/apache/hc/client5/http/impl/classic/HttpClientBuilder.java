package org.apache.hc.client5.http.impl.classic;

public class HttpClientBuilder {
    public static HttpClientBuilder create() { return null; }
    public final HttpClientBuilder useSystemProperties() { return this; }
    public final HttpClientBuilder setDefaultRequestConfig(org.apache.hc.client5.http.config.RequestConfig config) { return this; }
    public CloseableHttpClient build() { return null; }
}
