package org.springframework.http;

public enum HttpStatus implements HttpStatusCode {
    OK, BAD_REQUEST;
    public int value() { return 0; }
    public boolean is4xxClientError() { return false; }
    public String getReasonPhrase() { return null; }
}
