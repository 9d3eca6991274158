package org.springframework.boot.autoconfigure.jdbc;

public enum DataSourceInitializationMode { ALWAYS, EMBEDDED, NEVER }
