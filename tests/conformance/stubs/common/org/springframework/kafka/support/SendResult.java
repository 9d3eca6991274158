package org.springframework.kafka.support;

public class SendResult<K, V> {}
