package springfox.documentation;

public interface RequestHandler {
}
