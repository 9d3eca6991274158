package org.springframework.security.crypto.scrypt;

public final class SCryptPasswordEncoder implements org.springframework.security.crypto.password.PasswordEncoder {
    public SCryptPasswordEncoder(int cpuCost, int memoryCost, int parallelization, int keyLength, int saltLength) {}
    public static SCryptPasswordEncoder defaultsForSpringSecurity_v4_1() { return null; }
    public String encode(CharSequence raw) { return null; }
}
