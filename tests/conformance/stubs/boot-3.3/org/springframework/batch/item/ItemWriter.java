package org.springframework.batch.item;

public interface ItemWriter<T> { void write(Chunk<? extends T> chunk) throws Exception; }
