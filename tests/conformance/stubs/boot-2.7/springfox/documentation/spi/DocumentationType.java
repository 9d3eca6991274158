package springfox.documentation.spi;

public class DocumentationType {
    public static final DocumentationType SWAGGER_2 = null;
    public static final DocumentationType OAS_30 = null;
}
