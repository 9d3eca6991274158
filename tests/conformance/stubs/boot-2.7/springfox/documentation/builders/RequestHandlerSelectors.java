package springfox.documentation.builders;

import java.util.function.Predicate;
import springfox.documentation.RequestHandler;

public class RequestHandlerSelectors {
    public static Predicate<RequestHandler> any() { return null; }

    public static Predicate<RequestHandler> basePackage(String basePackage) { return null; }
}
