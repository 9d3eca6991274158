package org.springframework.test.context.junit4.rules;

import org.junit.rules.MethodRule;

public class SpringMethodRule implements MethodRule {}
