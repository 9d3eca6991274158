package springfox.documentation.builders;

import java.util.function.Predicate;

public class PathSelectors {
    public static Predicate<String> any() { return null; }

    public static Predicate<String> ant(String antPattern) { return null; }

    public static Predicate<String> regex(String pathRegex) { return null; }
}
