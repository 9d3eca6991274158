package org.springframework.boot.actuate.web.exchanges;

public interface HttpExchangeRepository {}
