package org.junit.rules;

public interface MethodRule {}
