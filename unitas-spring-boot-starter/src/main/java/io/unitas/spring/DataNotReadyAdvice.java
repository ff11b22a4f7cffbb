package io.unitas.spring;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a {@link DataNotReadyException} from any controller, MVC or WebFlux, with its problem as
 * {@code application/problem+json} and {@code Retry-After}, as the data layer's other answers are.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class DataNotReadyAdvice {

    @ExceptionHandler(DataNotReadyException.class)
    ResponseEntity<byte[]> notReady(DataNotReadyException e) {
        ProblemDetail problem = e.problem();
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(HttpStatusCode.valueOf(problem.status()))
                .contentType(MediaType.parseMediaType(ProblemJson.MEDIA_TYPE));
        if (problem.retryAfterSeconds() > 0) {
            answer.header("Retry-After", Long.toString(problem.retryAfterSeconds()));
        }
        return answer.body(ProblemJson.encode(problem));
    }
}
