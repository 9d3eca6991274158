package org.springframework.batch.core;

public class JobParameter<T> {
    public JobParameter(T value, Class<T> type) {}

    public JobParameter(T value, Class<T> type, boolean identifying) {}

    public T getValue() { return null; }
}
