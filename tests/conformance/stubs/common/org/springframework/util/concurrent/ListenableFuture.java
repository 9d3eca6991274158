package org.springframework.util.concurrent;

import java.util.concurrent.Future;

/** Deprecated in Framework 6.0, still present. */
public interface ListenableFuture<T> extends Future<T> {
    void addCallback(ListenableFutureCallback<? super T> callback);

    void addCallback(SuccessCallback<? super T> successCallback, FailureCallback failureCallback);
}
