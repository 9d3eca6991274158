package org.springframework.batch.core.configuration.annotation;

public @interface EnableBatchProcessing {}
