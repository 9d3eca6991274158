package org.springframework.batch.core;

import java.util.List;

public interface ItemWriteListener<S> {
    void beforeWrite(List<? extends S> items);
    void afterWrite(List<? extends S> items);
    void onWriteError(Exception exception, List<? extends S> items);
}
