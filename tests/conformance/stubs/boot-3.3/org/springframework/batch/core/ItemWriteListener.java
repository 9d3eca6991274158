package org.springframework.batch.core;

import org.springframework.batch.item.Chunk;

public interface ItemWriteListener<S> {
    default void beforeWrite(Chunk<? extends S> items) {}
    default void afterWrite(Chunk<? extends S> items) {}
    default void onWriteError(Exception exception, Chunk<? extends S> items) {}
}
