package org.springframework.http;

public enum HttpStatus {
    OK, BAD_REQUEST;
    public int value() { return 0; }
    public String getReasonPhrase() { return null; }
}
