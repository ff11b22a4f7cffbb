package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

/**
 * {@code /actuator/health/unitas} with Boot 4's defaults, as {@link UnitasHealthGroup} makes it on Boot 3. Boot 4
 * refuses a contributor named as a group, so there the component is {@value #MEMBER} and the {@code unitas} group
 * holds it alone, shown as the primary group is; an application's own {@code unitas} group is kept.
 */
final class UnitasBoot4HealthGroup implements HealthEndpointGroupsPostProcessor {

    /** The name of this region's health component on Boot 4. */
    static final String MEMBER = "unitasRegion";

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        if (groups.get(UnitasHealthGroup.NAME) != null) {
            return groups;
        }
        Map<String, HealthEndpointGroup> all = new LinkedHashMap<>();
        groups.getNames().forEach(name -> all.put(name, groups.get(name)));
        all.put(UnitasHealthGroup.NAME, new Group(groups.getPrimary()));
        return HealthEndpointGroups.of(groups.getPrimary(), all);
    }

    /** The {@value #MEMBER} contributor alone, shown as the primary group shows its members. */
    private record Group(HealthEndpointGroup primary) implements HealthEndpointGroup {
        @Override
        public boolean isMember(String name) {
            return MEMBER.equals(name);
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
