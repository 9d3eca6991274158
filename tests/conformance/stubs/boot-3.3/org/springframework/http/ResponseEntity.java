package org.springframework.http;

public class ResponseEntity<T> {
    public interface BodyBuilder { <T> ResponseEntity<T> body(T body); }
    public HttpStatusCode getStatusCode() { return null; }
    public static BodyBuilder status(HttpStatusCode status) { return null; }
}
