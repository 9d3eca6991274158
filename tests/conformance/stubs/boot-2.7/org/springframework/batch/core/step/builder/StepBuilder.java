package org.springframework.batch.core.step.builder;

import org.springframework.batch.core.step.tasklet.Tasklet;
public class StepBuilder {
    public StepBuilder(String name) {}
    public <I, O> SimpleStepBuilder<I, O> chunk(int size) { return null; }
    public TaskletStepBuilder tasklet(Tasklet t) { return null; }
}
