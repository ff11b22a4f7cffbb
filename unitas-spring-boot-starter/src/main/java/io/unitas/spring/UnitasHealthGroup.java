package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.health.AdditionalHealthEndpointPath;
import org.springframework.boot.actuate.health.HealthEndpointGroup;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.actuate.health.HttpCodeStatusMapper;
import org.springframework.boot.actuate.health.StatusAggregator;

/**
 * {@code /actuator/health/unitas} for everyone, as {@code /actuator/health/liveness} is: Boot answers a single
 * component's path only when components are shown ({@code show-components}), but a health group's path always. So
 * the {@code unitas} contributor gets a group of its own name, with the primary group's status mapping and visibility;
 * an application that declares a {@code management.endpoint.health.group.unitas} keeps its own.
 */
final class UnitasHealthGroup implements HealthEndpointGroupsPostProcessor {

    static final String NAME = "unitas";

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        if (groups.get(NAME) != null) {
            return groups;
        }
        Map<String, HealthEndpointGroup> all = new LinkedHashMap<>();
        groups.getNames().forEach(name -> all.put(name, groups.get(name)));
        all.put(NAME, new Group(groups.getPrimary()));
        return HealthEndpointGroups.of(groups.getPrimary(), all);
    }

    /** The {@code unitas} contributor alone, shown as the primary group shows its members. */
    private record Group(HealthEndpointGroup primary) implements HealthEndpointGroup {
        @Override
        public boolean isMember(String name) {
            return NAME.equals(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return primary.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return primary.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return primary.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return primary.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return null;
        }
    }
}
