package io.unitas.spring;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.resolver.FallbackPoolSync;

/**
 * The kept fallback pool as the service shows it: a section {@code fallback_pool} of {@code /actuator/unitas} (file,
 * addresses, last problem, fetches refused) and, while the last fetch was refused, its line as a reason in
 * {@code /actuator/health/unitas}. A refused fetch only reports: the pool stands in for DNS, the service serves without.
 */
final class FallbackPoolStatus implements UnitasStateSection, UnitasHealthReasons {

    private final FallbackPoolSync sync;

    FallbackPoolStatus(FallbackPoolSync sync) {
        this.sync = sync;
    }

    @Override
    public String name() {
        return "fallback_pool";
    }

    @Override
    public Object describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", sync.file().toString());
        out.put("addresses", sync.pool().addresses().stream().map(InetAddress::getHostAddress).toList());
        out.put("problem", sync.problem());
        out.put("refused", sync.refused());
        return out;
    }

    @Override
    public List<Reason> reasons() {
        String problem = sync.problem();
        return problem.isEmpty() ? List.of() : List.of(new Reason("fallback pool: " + problem, Effect.REPORT));
    }
}
