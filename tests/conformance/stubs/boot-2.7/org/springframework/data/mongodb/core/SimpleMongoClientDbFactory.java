package org.springframework.data.mongodb.core;

public class SimpleMongoClientDbFactory implements org.springframework.data.mongodb.MongoDbFactory { public SimpleMongoClientDbFactory(String uri) {} }
