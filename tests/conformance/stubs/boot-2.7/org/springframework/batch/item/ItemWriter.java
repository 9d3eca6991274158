package org.springframework.batch.item;

public interface ItemWriter<T> { void write(java.util.List<? extends T> items) throws Exception; }
