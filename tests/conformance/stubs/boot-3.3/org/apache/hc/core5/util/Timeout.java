package org.apache.hc.core5.util;

public class Timeout {
    public static Timeout ofMilliseconds(long milliseconds) { return null; }
}
