package org.springframework.security.provisioning;

import javax.sql.DataSource;
import org.springframework.security.core.userdetails.UserDetails;

public class JdbcUserDetailsManager implements UserDetailsManager {
    public JdbcUserDetailsManager(DataSource dataSource) {}
    public void setUsersByUsernameQuery(String query) {}
    public void setAuthoritiesByUsernameQuery(String query) {}
    public void setGroupAuthoritiesByUsernameQuery(String query) {}
    public void setRolePrefix(String prefix) {}
    public UserDetails loadUserByUsername(String username) { return null; }
}
