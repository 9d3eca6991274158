package org.springframework.data.mongodb;

public interface MongoDatabaseFactory {}
