package org.springframework.http;

public class ResponseEntity<T> {
    public interface BodyBuilder { <T> ResponseEntity<T> body(T body); }
    public static BodyBuilder status(HttpStatusCode status) { return null; }
}
