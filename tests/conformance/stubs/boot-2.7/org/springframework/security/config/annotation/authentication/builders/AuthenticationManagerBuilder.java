package org.springframework.security.config.annotation.authentication.builders;

public class AuthenticationManagerBuilder {
    public final class InMemory {
        public UserDetailsBuilder withUser(String name) { return new UserDetailsBuilder(); }
        public InMemory passwordEncoder(org.springframework.security.crypto.password.PasswordEncoder e) { return this; }
    }
    public final class UserDetailsBuilder {
        public UserDetailsBuilder password(String p) { return this; }
        public UserDetailsBuilder roles(String... r) { return this; }
        public InMemory and() { return null; }
    }
    public InMemory inMemoryAuthentication() throws Exception { return null; }
}
