package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.Map;

import io.unitas.client.InstanceSelector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.cloud.client.serviceregistry.Registration;

/**
 * Puts this instance's {@code unitas.region} (and {@code unitas.unit}, {@code unitas.version} when set) into the
 * metadata the application's service registry registers it with, before it registers: Eureka, Consul and Nacos
 * registrations all expose that metadata as a mutable map. Values the application set itself are kept.
 */
final class RegistrationMetadata implements BeanPostProcessor {

    private static final Log LOG = LogFactory.getLog(RegistrationMetadata.class);

    private final ObjectProvider<UnitasProperties> properties;

    RegistrationMetadata(ObjectProvider<UnitasProperties> properties) {
        this.properties = properties;
    }

    /** The metadata entries of this instance. */
    static Map<String, String> entries(UnitasProperties p) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(InstanceSelector.REGION, p.getRegion());
        if (p.getInstance().getUnit() != null) {
            m.put(InstanceSelector.UNIT, p.getInstance().getUnit());
        }
        if (p.getInstance().getVersion() != null) {
            m.put(InstanceSelector.VERSION, p.getInstance().getVersion());
        }
        return m;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Registration registration && registration.getMetadata() != null) {
            Map<String, String> entries = entries(properties.getObject());
            try {
                entries.forEach(registration.getMetadata()::putIfAbsent);
            } catch (UnsupportedOperationException readOnly) {
                LOG.warn("the registration of " + registration.getServiceId() + " has read-only metadata; set "
                         + entries + " in the registry's own metadata settings");
            }
        }
        return bean;
    }
}
