package org.springframework.boot.autoconfigure.web;

/** Deprecated since 2.4 in favour of WebProperties.Resources, which it extends; removed in 3.0. */
@Deprecated
public class ResourceProperties extends WebProperties.Resources {
}
