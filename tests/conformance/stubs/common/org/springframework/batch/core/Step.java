package org.springframework.batch.core;

public interface Step {}
