package io.unitas.core.rules;

/** A custom strategy for tests, installed through META-INF/services: header x-tenant "acme" is unit u-eu. */
public final class TenantStrategy implements UnitStrategy {

    @Override
    public String name() {
        return "tenant";
    }

    @Override
    public String unitFor(RequestView request) {
        String tenant = request.header("x-tenant");
        if (tenant == null) {
            return null;
        }
        return switch (tenant) {
            case "acme" -> "u-eu";
            case "initech" -> "u-us";
            default -> "u-" + tenant;
        };
    }
}
