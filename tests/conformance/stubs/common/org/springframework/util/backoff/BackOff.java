package org.springframework.util.backoff;

public interface BackOff {}
