package org.springframework.util.concurrent;

public interface ListenableFutureCallback<T> {
    void onSuccess(T result);
    void onFailure(Throwable ex);
}
