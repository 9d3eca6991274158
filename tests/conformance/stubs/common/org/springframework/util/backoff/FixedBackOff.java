package org.springframework.util.backoff;

public class FixedBackOff implements BackOff { public FixedBackOff(long interval, long maxAttempts) {} }
