package org.springframework.security.crypto.password;

public final class Pbkdf2PasswordEncoder implements PasswordEncoder {
    public Pbkdf2PasswordEncoder() {}
    public Pbkdf2PasswordEncoder(CharSequence secret) {}
    public Pbkdf2PasswordEncoder(CharSequence secret, int saltLength, int iterations, int hashWidth) {}
    public static Pbkdf2PasswordEncoder defaultsForSpringSecurity_v5_5() { return null; }
    public String encode(CharSequence raw) { return null; }
}
