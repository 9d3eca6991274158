package org.springframework.transaction;

public interface PlatformTransactionManager {}
