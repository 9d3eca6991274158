package org.springframework.boot.sql.init;

public enum DatabaseInitializationMode { ALWAYS, EMBEDDED, NEVER }
