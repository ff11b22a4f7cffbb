package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;

import io.unitas.client.RoutingSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One warning line at start per path key source of the unit rules that none of this service's request mappings
 * carries ({@link PathKeySources}): a pattern that matches nothing here, most often a typo in {@code rules.yaml} or
 * a path renamed in the service. A warning, not a failed start, since one rules file serves many services.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnWebApplication
@ConditionalOnBean(UnitasRoutingState.class)
public class UnitasPathKeyCheckAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(UnitasPathKeyCheckAutoConfiguration.class);

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Servlet {

        @Bean
        SmartInitializingSingleton unitasPathKeyCheck(UnitasRoutingState state, UnitasProperties properties,
                ObjectProvider<org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping> mappings) {
            return () -> {
                List<String> patterns = new ArrayList<>();
                mappings.orderedStream().forEach(m -> m.getHandlerMethods().keySet()
                                                       .forEach(info -> patterns.addAll(info.getPatternValues())));
                warn(state, properties, patterns);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class Reactive {

        @Bean
        SmartInitializingSingleton unitasPathKeyCheck(UnitasRoutingState state, UnitasProperties properties,
                ObjectProvider<org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping>
                        mappings) {
            return () -> {
                List<String> patterns = new ArrayList<>();
                mappings.orderedStream().forEach(m -> m.getHandlerMethods().keySet().forEach(
                        info -> info.getPatternsCondition().getPatterns()
                                    .forEach(pattern -> patterns.add(pattern.getPatternString()))));
                warn(state, properties, patterns);
            };
        }
    }

    private static void warn(UnitasRoutingState state, UnitasProperties properties, List<String> patterns) {
        RoutingSnapshot snapshot = state.current();
        if (snapshot == null || snapshot.rules() == null || patterns.isEmpty()) {
            return; // no rules yet (a control plane not heard from), or a service without request mappings
        }
        String where = properties.getRules() == null ? "the unit rules"
                       : "unitas.rules (" + properties.getRules() + ")";
        for (String pattern : PathKeySources.uncarried(snapshot.rules().sources(), patterns)) {
            log.warn("{}: key source {path: {}} matches none of this service's request mappings (expected: a mapping"
                     + " that starts with it, such as {}/...); its requests get no routing key from the path",
                     where, pattern, pattern);
        }
    }
}
