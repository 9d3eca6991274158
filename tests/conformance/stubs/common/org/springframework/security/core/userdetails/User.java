package org.springframework.security.core.userdetails;

public class User implements UserDetails {
    public static final class UserBuilder {
        public UserBuilder password(String p) { return this; }
        public UserBuilder roles(String... r) { return this; }
        public UserBuilder authorities(String... a) { return this; }
        public UserBuilder disabled(boolean d) { return this; }
        public UserDetails build() { return null; }
    }
    public static UserBuilder withUsername(String name) { return new UserBuilder(); }
}
