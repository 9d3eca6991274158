package org.springframework.boot.actuate.trace.http;

public class InMemoryHttpTraceRepository implements HttpTraceRepository {
    public void setCapacity(int capacity) {}
}
