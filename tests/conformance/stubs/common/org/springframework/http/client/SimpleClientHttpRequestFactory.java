package org.springframework.http.client;

public class SimpleClientHttpRequestFactory implements ClientHttpRequestFactory {
    public void setConnectTimeout(int connectTimeout) {}
    public void setReadTimeout(int readTimeout) {}
}
