package org.springframework.batch.core.step.builder;

import org.springframework.batch.item.ItemReader;
import org.springframework.batch.item.ItemWriter;
public class SimpleStepBuilder<I, O> {
    public SimpleStepBuilder<I, O> reader(ItemReader<? extends I> r) { return this; }
    public SimpleStepBuilder<I, O> writer(ItemWriter<? super O> w) { return this; }
    public org.springframework.batch.core.Step build() { return null; }
}
