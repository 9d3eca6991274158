package org.springframework.batch.core.step.builder;

import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.tasklet.Tasklet;
import org.springframework.transaction.PlatformTransactionManager;
public class StepBuilder {
    public StepBuilder(String name, JobRepository repository) {}
    public <I, O> SimpleStepBuilder<I, O> chunk(int size, PlatformTransactionManager tm) { return null; }
    public TaskletStepBuilder tasklet(Tasklet t, PlatformTransactionManager tm) { return null; }
}
