package org.springframework.security.crypto.bcrypt;

import org.springframework.security.crypto.password.PasswordEncoder;

public class BCryptPasswordEncoder implements PasswordEncoder {
    public BCryptPasswordEncoder() {}
    public String encode(CharSequence raw) { return null; }
}
