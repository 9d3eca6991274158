package org.springframework.kafka.listener;

public class ContainerStoppingErrorHandler implements ErrorHandler { public ContainerStoppingErrorHandler() {} }
