package org.springframework.util.concurrent;

@FunctionalInterface
public interface SuccessCallback<T> {
    void onSuccess(T result);
}
