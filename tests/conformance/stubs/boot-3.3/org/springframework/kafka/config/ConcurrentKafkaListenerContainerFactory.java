package org.springframework.kafka.config;

public class ConcurrentKafkaListenerContainerFactory<K, V> {
    public void setCommonErrorHandler(org.springframework.kafka.listener.CommonErrorHandler h) {}
}
