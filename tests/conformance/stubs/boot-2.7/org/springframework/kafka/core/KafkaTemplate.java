package org.springframework.kafka.core;

import org.springframework.kafka.support.SendResult;
import org.springframework.util.concurrent.ListenableFuture;

public class KafkaTemplate<K, V> {
    public ListenableFuture<SendResult<K, V>> send(String topic, V data) { return null; }
    public ListenableFuture<SendResult<K, V>> send(String topic, K key, V data) { return null; }
}
