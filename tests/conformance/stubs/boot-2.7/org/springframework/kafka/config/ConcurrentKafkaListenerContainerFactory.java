package org.springframework.kafka.config;

public class ConcurrentKafkaListenerContainerFactory<K, V> {
    public void setErrorHandler(org.springframework.kafka.listener.ErrorHandler h) {}
}
