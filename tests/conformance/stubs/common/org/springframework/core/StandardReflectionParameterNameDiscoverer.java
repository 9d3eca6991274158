package org.springframework.core;

public class StandardReflectionParameterNameDiscoverer implements ParameterNameDiscoverer {
    public String[] getParameterNames(java.lang.reflect.Method method) { return null; }
}
