package org.springframework.security.config.annotation.authentication.builders;

import javax.sql.DataSource;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.password.PasswordEncoder;

public class AuthenticationManagerBuilder {
    public final class InMemory {
        public UserDetailsBuilder withUser(String name) { return new UserDetailsBuilder(); }
        public InMemory passwordEncoder(PasswordEncoder e) { return this; }
    }
    public final class UserDetailsBuilder {
        public UserDetailsBuilder password(String p) { return this; }
        public UserDetailsBuilder roles(String... r) { return this; }
        public InMemory and() { return null; }
    }
    /** DaoAuthenticationConfigurer<AuthenticationManagerBuilder, T>. */
    public final class DaoAuthenticationConfigurer {
        public DaoAuthenticationConfigurer passwordEncoder(PasswordEncoder e) { return this; }
    }
    /** JdbcUserDetailsManagerConfigurer<AuthenticationManagerBuilder>. */
    public final class JdbcUserDetailsManagerConfigurer {
        public JdbcUserDetailsManagerConfigurer dataSource(DataSource d) throws Exception { return this; }
        public JdbcUserDetailsManagerConfigurer usersByUsernameQuery(String q) { return this; }
        public JdbcUserDetailsManagerConfigurer authoritiesByUsernameQuery(String q) { return this; }
        public JdbcUserDetailsManagerConfigurer groupAuthoritiesByUsername(String q) { return this; }
        public JdbcUserDetailsManagerConfigurer rolePrefix(String p) { return this; }
        public JdbcUserDetailsManagerConfigurer passwordEncoder(PasswordEncoder e) { return this; }
    }
    public InMemory inMemoryAuthentication() throws Exception { return null; }
    public JdbcUserDetailsManagerConfigurer jdbcAuthentication() throws Exception { return null; }
    public <T extends UserDetailsService> DaoAuthenticationConfigurer userDetailsService(T service) throws Exception { return null; }
    public AuthenticationManagerBuilder authenticationProvider(AuthenticationProvider p) { return this; }
}
