package org.springframework.web.context.request;

public interface WebRequest {}
