package org.junit.runner;

public abstract class Runner {}
