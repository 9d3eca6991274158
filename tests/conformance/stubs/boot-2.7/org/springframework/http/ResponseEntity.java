package org.springframework.http;

public class ResponseEntity<T> {
    public interface BodyBuilder { <T> ResponseEntity<T> body(T body); }
    public HttpStatus getStatusCode() { return null; }
    public int getStatusCodeValue() { return 0; }
    public static BodyBuilder status(HttpStatus status) { return null; }
}
