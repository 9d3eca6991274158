package org.springframework.kafka.listener;

public interface CommonErrorHandler {}
