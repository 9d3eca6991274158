package org.springframework.boot.test.system;

import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/** Boot 2.2+; JUnit 4 is not in the 3.3 stubs, so it is only here. */
public class OutputCaptureRule implements TestRule, CapturedOutput {
    public Statement apply(Statement base, Description description) { return null; }
    public void expect(Object matcher) {}
    public String getAll() { return null; }
    public String getOut() { return null; }
    public String getErr() { return null; }
}
