package org.springframework.batch.core.step.tasklet;

public interface Tasklet {}
