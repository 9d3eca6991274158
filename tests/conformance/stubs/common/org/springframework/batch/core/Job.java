package org.springframework.batch.core;

public interface Job {}
