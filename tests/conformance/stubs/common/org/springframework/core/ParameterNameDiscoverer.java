package org.springframework.core;

public interface ParameterNameDiscoverer {
    String[] getParameterNames(java.lang.reflect.Method method);
}
