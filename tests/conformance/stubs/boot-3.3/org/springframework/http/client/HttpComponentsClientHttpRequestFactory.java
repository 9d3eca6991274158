package org.springframework.http.client;

public class HttpComponentsClientHttpRequestFactory implements ClientHttpRequestFactory {
    public HttpComponentsClientHttpRequestFactory() { }
    public HttpComponentsClientHttpRequestFactory(org.apache.hc.client5.http.classic.HttpClient httpClient) { }
    public void setHttpClient(org.apache.hc.client5.http.classic.HttpClient httpClient) { }
    public void setConnectTimeout(int connectTimeout) { }
    public void setConnectionRequestTimeout(int connectionRequestTimeout) { }
}
