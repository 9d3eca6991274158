package org.springframework.batch.core.configuration.annotation;

public class DefaultBatchConfigurer {
    public DefaultBatchConfigurer() { }
    public DefaultBatchConfigurer(javax.sql.DataSource dataSource) { }
    public void setDataSource(javax.sql.DataSource dataSource) { }
    public org.springframework.batch.core.repository.JobRepository getJobRepository() { return null; }
}
