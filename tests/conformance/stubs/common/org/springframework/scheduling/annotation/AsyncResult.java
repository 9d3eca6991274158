package org.springframework.scheduling.annotation;

import java.util.concurrent.TimeUnit;
import org.springframework.util.concurrent.FailureCallback;
import org.springframework.util.concurrent.ListenableFuture;
import org.springframework.util.concurrent.ListenableFutureCallback;
import org.springframework.util.concurrent.SuccessCallback;

/** Deprecated in Framework 6.0 ("in favor of CompletableFuture"), still present in 6.1. */
public class AsyncResult<V> implements ListenableFuture<V> {
    public AsyncResult(V value) {}
    public static <V> ListenableFuture<V> forValue(V value) { return null; }
    public boolean cancel(boolean mayInterruptIfRunning) { return false; }
    public boolean isCancelled() { return false; }
    public boolean isDone() { return true; }
    public V get() { return null; }
    public V get(long timeout, TimeUnit unit) { return null; }
    public void addCallback(ListenableFutureCallback<? super V> callback) {}
    public void addCallback(SuccessCallback<? super V> successCallback, FailureCallback failureCallback) {}
}
