package org.springframework.kafka.listener;

public class SeekToCurrentErrorHandler implements ErrorHandler { public SeekToCurrentErrorHandler(org.springframework.util.backoff.BackOff b) {} }
