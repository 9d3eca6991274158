package org.springframework.kafka.listener;

public class CommonContainerStoppingErrorHandler implements CommonErrorHandler { public CommonContainerStoppingErrorHandler() {} }
