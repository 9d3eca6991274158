package org.springframework.security.web.util.matcher;

public final class RegexRequestMatcher implements RequestMatcher {
    public RegexRequestMatcher(String pattern, String httpMethod) {}
}
