package org.springframework.batch.core.repository;

public interface JobRepository {}
