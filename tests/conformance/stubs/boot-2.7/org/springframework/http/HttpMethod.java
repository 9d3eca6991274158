package org.springframework.http;

public enum HttpMethod { GET, POST, PUT, DELETE }
