package org.springframework.security.config.annotation.web.configurers;

public final class SessionManagementConfigurer<H> extends AbstractHttpConfigurer<SessionManagementConfigurer<H>, H> {
    public final class ConcurrencyControlConfigurer {
        public ConcurrencyControlConfigurer maxSessionsPreventsLogin(boolean b) { return this; }
        public SessionManagementConfigurer<H> and() { return SessionManagementConfigurer.this; }
    }
    public final class SessionFixationConfigurer {
        public SessionManagementConfigurer<H> migrateSession() { return SessionManagementConfigurer.this; }
        public SessionManagementConfigurer<H> newSession() { return SessionManagementConfigurer.this; }
    }
    public ConcurrencyControlConfigurer maximumSessions(int n) { return null; }
    public SessionFixationConfigurer sessionFixation() { return null; }
}
