package org.springframework.core;

public class LocalVariableTableParameterNameDiscoverer implements ParameterNameDiscoverer {
    public String[] getParameterNames(java.lang.reflect.Method method) { return null; }
}
