package io.unitas.spring.sagabad;

import io.unitas.data.saga.StepContext;
import io.unitas.spring.SagaStep;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** Sagas declared wrong in every way the starter names. */
@SpringBootApplication
public class BadSagaApp {

    @Service
    public static class Payments {
        @SagaStep(saga = "pay", order = 1, compensation = "nope")
        void reserve(StepContext step) {}

        @SagaStep(saga = "pay", order = 1, compensation = "unship", timeout = "soon")
        void ship(StepContext step) {}

        void unship(StepContext step) {}

        @SagaStep(saga = "pay", order = 2)
        void charge(String step) {}

        @SagaStep(saga = "notify", order = 1)
        void mail(StepContext step) {}

        @SagaStep(saga = "notify", order = 2, compensation = "unmail")
        void sms(StepContext step) {}

        void unmail(StepContext step) {}
    }
}
