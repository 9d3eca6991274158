package org.springdoc.core.models;

public class GroupedOpenApi {
    public static Builder builder() { return null; }

    public static class Builder {
        public Builder group(String group) { return this; }

        public Builder packagesToScan(String... packagesToScan) { return this; }

        public Builder pathsToMatch(String... pathsToMatch) { return this; }

        public GroupedOpenApi build() { return null; }
    }
}
