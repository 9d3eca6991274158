package org.springframework.boot.test.system;

public interface CapturedOutput extends CharSequence {
    default int length() { return 0; }
    default char charAt(int index) { return 0; }
    default CharSequence subSequence(int start, int end) { return null; }
    String getAll();
    String getOut();
    String getErr();
}
