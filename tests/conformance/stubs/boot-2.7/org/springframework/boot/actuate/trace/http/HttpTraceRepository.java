package org.springframework.boot.actuate.trace.http;

public interface HttpTraceRepository {}
