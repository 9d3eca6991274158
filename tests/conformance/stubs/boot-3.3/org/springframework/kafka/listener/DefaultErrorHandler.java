package org.springframework.kafka.listener;

public class DefaultErrorHandler implements CommonErrorHandler { public DefaultErrorHandler(org.springframework.util.backoff.BackOff b) {} }
