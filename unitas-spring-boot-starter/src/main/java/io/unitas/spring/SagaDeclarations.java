package io.unitas.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import io.unitas.data.saga.Saga;
import io.unitas.data.saga.StepAction;
import io.unitas.data.saga.StepContext;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The sagas the application's beans declare with {@link SagaStep}, read from the bean definitions' types (no bean is
 * created to find them, so a bean may both declare steps and start sagas); each step calls its bean, looked up when
 * the step runs.
 */
final class SagaDeclarations {

    private SagaDeclarations() {}

    /** One declared step: the bean, its method and the annotation. */
    private record Declared(String bean, Class<?> type, Method method, SagaStep step) {
        String where() {
            return type.getSimpleName() + "." + method.getName();
        }
    }

    /** Whether any bean of {@code beans} declares a {@link SagaStep}. */
    static boolean any(ConfigurableListableBeanFactory beans) {
        return !declared(beans).isEmpty();
    }

    /**
     * The declared sagas, by name.
     *
     * @throws UnitasConfigurationException naming every wrong declaration, as {@code Type.method: ...}
     */
    static List<Saga> sagas(ConfigurableListableBeanFactory beans) {
        Map<String, List<Declared>> bySaga = new LinkedHashMap<>();
        for (Declared d : declared(beans)) {
            bySaga.computeIfAbsent(d.step().saga(), k -> new ArrayList<>()).add(d);
        }
        List<String> problems = new ArrayList<>();
        List<Saga> sagas = new ArrayList<>();
        bySaga.forEach((name, steps) -> {
            steps.sort(Comparator.comparingInt(d -> d.step().order()));
            Saga.Builder saga = Saga.builder(name);
            int problemsBefore = problems.size();
            for (int i = 0; i < steps.size(); i++) {
                Declared d = steps.get(i);
                if (i > 0 && steps.get(i - 1).step().order() == d.step().order()) {
                    problems.add(d.where() + ": @SagaStep(saga = \"" + name + "\", order = " + d.step().order()
                                 + ") repeats the order of " + steps.get(i - 1).where()
                                 + " (expected: one step per order in a saga)");
                }
                if (!takesStepContext(d.method())) {
                    problems.add(d.where() + ": parameters " + Arrays.stream(d.method().getParameterTypes())
                            .map(Class::getSimpleName).toList() + " (expected: one StepContext)");
                }
                Duration timeout = null;
                try {
                    timeout = DurationStyle.detectAndParse(d.step().timeout());
                } catch (IllegalArgumentException e) {
                    problems.add(d.where() + ": timeout '" + d.step().timeout()
                                 + "' (expected: a duration such as 2s or 500ms)");
                }
                Method compensation = null;
                String compensate = d.step().compensation();
                if (!compensate.isEmpty()) {
                    compensation = ReflectionUtils.findMethod(d.type(), compensate, StepContext.class);
                    if (compensation == null) {
                        problems.add(d.where() + ": compensation '" + compensate + "' (expected: a method "
                                     + compensate + "(StepContext) of " + d.type().getSimpleName() + ")");
                    }
                }
                if (d.step().pivot() && !compensate.isEmpty()) {
                    problems.add(d.where() + ": a pivot with compensation '" + compensate
                                 + "' (expected: none; the pivot is the step the saga does not undo)");
                }
                if (problems.size() > problemsBefore) {
                    continue;
                }
                String stepName = d.step().name().isEmpty() ? d.method().getName() : d.step().name();
                StepAction execute = action(beans, d.bean(), d.method());
                if (d.step().pivot()) {
                    saga.pivot(stepName, timeout, execute);
                } else if (compensation != null) {
                    saga.step(stepName, timeout, execute, action(beans, d.bean(), compensation));
                } else {
                    saga.step(stepName, timeout, execute);
                }
            }
            if (problems.size() > problemsBefore) {
                return;
            }
            try {
                sagas.add(saga.build());
            } catch (InvalidModelException e) {
                for (Problem p : e.problems()) {
                    problems.add("saga " + name + ": " + p);
                }
            }
        });
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        return sagas;
    }

    private static List<Declared> declared(ConfigurableListableBeanFactory beans) {
        List<Declared> found = new ArrayList<>();
        for (String name : beans.getBeanDefinitionNames()) {
            Class<?> type;
            try {
                type = beans.getType(name, false); // never creates a bean to learn its type
            } catch (BeansException e) {
                continue; // a bean whose type cannot be told without creating it declares no step here
            }
            if (type == null) {
                continue;
            }
            Class<?> user = ClassUtils.getUserClass(type);
            Map<Method, SagaStep> steps = MethodIntrospector.selectMethods(user,
                    (MethodIntrospector.MetadataLookup<SagaStep>) m ->
                            AnnotatedElementUtils.findMergedAnnotation(m, SagaStep.class));
            steps.forEach((method, step) -> found.add(new Declared(name, user, method, step)));
        }
        return found;
    }

    private static boolean takesStepContext(Method method) {
        return method.getParameterCount() == 1 && method.getParameterTypes()[0] == StepContext.class;
    }

    /** Calls {@code method} on the bean {@code bean} (through its proxy, if any) when the step runs. */
    private static StepAction action(BeanFactory beans, String bean, Method method) {
        ReflectionUtils.makeAccessible(method);
        return context -> {
            Object target = beans.getBean(bean);
            Method invocable = AopUtils.selectInvocableMethod(method, target.getClass());
            ReflectionUtils.makeAccessible(invocable);
            try {
                invocable.invoke(target, context);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw (Error) cause;
            }
        };
    }
}
