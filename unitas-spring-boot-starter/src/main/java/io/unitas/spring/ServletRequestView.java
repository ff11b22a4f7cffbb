package io.unitas.spring;

import java.util.Enumeration;
import java.util.List;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;

import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.RequestView;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.util.UriComponentsBuilder;

/** The unit rules' view of a servlet request; the query is read from the query string, never from a form body. */
final class ServletRequestView implements RequestView {

    private final HttpServletRequest request;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                if (c.getName().equals(name)) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    @Override
    public String query(String name) {
        List<String> values = query().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private MultiValueMap<String, String> query() {
        String q = request.getQueryString();
        return q == null ? new LinkedMultiValueMap<>()
                : UriComponentsBuilder.newInstance().query(q).build(false).encode().getQueryParams();
    }

    /** The request URI's path, as sent (percent-encoded), without the query. */
    @Override
    public String path() {
        return request.getRequestURI();
    }

    @Override
    public boolean repeated(KeySource source) {
        return switch (source.kind()) {
            case HEADER -> {
                Enumeration<String> values = request.getHeaders(source.name());
                yield values != null && values.hasMoreElements() && values.nextElement() != null
                      && values.hasMoreElements();
            }
            case COOKIE -> {
                Cookie[] cookies = request.getCookies();
                int seen = 0;
                for (int i = 0; cookies != null && i < cookies.length; i++) {
                    if (cookies[i].getName().equals(source.name())) {
                        seen++;
                    }
                }
                yield seen > 1;
            }
            case QUERY -> {
                List<String> values = query().get(source.name());
                yield values != null && values.size() > 1;
            }
            case PATH, DOMAIN_PREFIX, STRATEGY -> false;
        };
    }

    @Override
    public String host() {
        return request.getHeader("Host");
    }
}
