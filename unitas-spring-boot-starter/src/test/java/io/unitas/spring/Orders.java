package io.unitas.spring;

// The caller's snippet of docs/spring.md ("Writes in the wrong region"), as it is there: it must compile and work.

import org.springframework.http.ProblemDetail;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

final class Orders {

    /** Places an order for {@code userId}; returns the home region when this instance refused it, else null. */
    static String order(RestClient service, String userId) {
        try {
            service.post().uri("/orders").header("x-user-id", userId).retrieve().toBodilessEntity();
            return null;
        } catch (HttpClientErrorException e) {
            ProblemDetail problem = e.getResponseBodyAs(ProblemDetail.class);
            if (e.getStatusCode().value() != 421 || problem == null || problem.getProperties() == null) {
                throw e;
            }
            return (String) problem.getProperties().get("home");    // "us": send it there, or through a gateway
        }
    }
}
