package org.springframework.http.client;

public interface ClientHttpRequestFactory {}
