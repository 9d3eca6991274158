package springfox.documentation.spring.web.plugins;

import java.util.function.Predicate;
import springfox.documentation.RequestHandler;

public class ApiSelectorBuilder {
    public ApiSelectorBuilder apis(Predicate<RequestHandler> selector) { return this; }

    public ApiSelectorBuilder paths(Predicate<String> selector) { return this; }

    public Docket build() { return null; }
}
