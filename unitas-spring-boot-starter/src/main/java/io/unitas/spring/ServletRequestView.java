package io.unitas.spring;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;

import io.unitas.core.rules.RequestView;
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
        String q = request.getQueryString();
        return q == null ? null
                : UriComponentsBuilder.newInstance().query(q).build(false).encode().getQueryParams().getFirst(name);
    }

    @Override
    public String host() {
        return request.getHeader("Host");
    }
}
