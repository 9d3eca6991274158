package org.apache.hc.client5.http.classic;

public interface HttpClient {}
