package org.springframework.batch.core;

import java.util.Date;

public class JobParameter {
    public JobParameter(String parameter) {}

    public JobParameter(String parameter, boolean identifying) {}

    public JobParameter(Long parameter) {}

    public JobParameter(Long parameter, boolean identifying) {}

    public JobParameter(Date parameter) {}

    public JobParameter(Double parameter) {}

    public Object getValue() { return null; }
}
