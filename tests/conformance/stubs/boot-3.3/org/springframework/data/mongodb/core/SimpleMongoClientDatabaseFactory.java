package org.springframework.data.mongodb.core;

public class SimpleMongoClientDatabaseFactory implements org.springframework.data.mongodb.MongoDatabaseFactory { public SimpleMongoClientDatabaseFactory(String uri) {} }
