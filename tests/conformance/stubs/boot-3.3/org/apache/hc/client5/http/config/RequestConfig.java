package org.apache.hc.client5.http.config;

public class RequestConfig {
    public static Builder custom() { return null; }

    public static class Builder {
        public Builder setResponseTimeout(org.apache.hc.core5.util.Timeout responseTimeout) { return this; }
        public RequestConfig build() { return null; }
    }
}
