package org.springframework.kafka.core;

import java.util.concurrent.CompletableFuture;
import org.springframework.kafka.support.SendResult;

public class KafkaTemplate<K, V> {
    public CompletableFuture<SendResult<K, V>> send(String topic, V data) { return null; }
    public CompletableFuture<SendResult<K, V>> send(String topic, K key, V data) { return null; }
}
