package org.springframework.http;

public class HttpHeaders {}
