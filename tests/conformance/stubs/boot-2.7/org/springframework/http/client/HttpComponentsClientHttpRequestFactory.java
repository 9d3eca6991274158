package org.springframework.http.client;

public class HttpComponentsClientHttpRequestFactory implements ClientHttpRequestFactory {
    public HttpComponentsClientHttpRequestFactory() { }
    public void setConnectTimeout(int timeout) { }
    public void setConnectionRequestTimeout(int connectionRequestTimeout) { }
    public void setReadTimeout(int timeout) { }
}
