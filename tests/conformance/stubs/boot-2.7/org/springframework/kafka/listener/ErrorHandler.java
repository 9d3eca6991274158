package org.springframework.kafka.listener;

public interface ErrorHandler {}
