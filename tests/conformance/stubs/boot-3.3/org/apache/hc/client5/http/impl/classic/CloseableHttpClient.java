package org.apache.hc.client5.http.impl.classic;

public abstract class CloseableHttpClient implements org.apache.hc.client5.http.classic.HttpClient {}
