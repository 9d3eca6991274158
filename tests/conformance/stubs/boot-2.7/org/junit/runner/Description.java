package org.junit.runner;

public class Description {}
