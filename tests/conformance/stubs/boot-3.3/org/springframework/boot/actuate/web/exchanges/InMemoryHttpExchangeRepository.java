package org.springframework.boot.actuate.web.exchanges;

public class InMemoryHttpExchangeRepository implements HttpExchangeRepository {
    public void setCapacity(int capacity) {}
}
