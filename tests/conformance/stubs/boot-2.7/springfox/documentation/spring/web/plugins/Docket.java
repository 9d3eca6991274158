package springfox.documentation.spring.web.plugins;

import springfox.documentation.spi.DocumentationType;

public class Docket {
    public Docket(DocumentationType documentationType) {}

    public Docket groupName(String groupName) { return this; }

    public ApiSelectorBuilder select() { return null; }
}
