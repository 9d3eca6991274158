package org.springframework.batch.item;

public interface ItemReader<T> { T read() throws Exception; }
