package org.springframework.test.context.junit4;

import org.junit.runner.Runner;

/** Extends BlockJUnit4ClassRunner in spring-test; only its place as a Runner matters here. */
public class SpringJUnit4ClassRunner extends Runner {}
