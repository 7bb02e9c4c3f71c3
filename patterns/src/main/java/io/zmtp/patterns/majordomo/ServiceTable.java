package io.zmtp.patterns.majordomo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The services the broker knows, by name: a service is created by the first request or READY that
 * names it, within {@link MajordomoBrokerSettings#maxServices()}, and forgotten as soon as it has
 * neither queued requests nor workers ({@link BrokerService#unused()}). Used on the broker's loop only.
 */
final class ServiceTable {
    private final Map<String, BrokerService> byName = new HashMap<>();
    private final int max;

    ServiceTable(int max) {
        this.max = max;
    }

    /** The service named, or null. */
    BrokerService get(String name) {
        return byName.get(name);
    }

    /** The service named, created if new; null if it is new and the broker keeps the most services already. */
    BrokerService getOrCreate(String name) {
        BrokerService s = byName.get(name);
        if (s == null && byName.size() < max) {
            s = new BrokerService(name);
            byName.put(name, s);
        }
        return s;
    }

    /** Why a new service cannot be created. */
    String fullReason() {
        return "the broker has " + byName.size() + " services, the most it keeps";
    }

    /** Forgets {@code s} if it has neither queued requests nor workers. */
    void forgetIfUnused(BrokerService s) {
        if (s.unused()) {
            byName.remove(s.name, s);
        }
    }

    /** The workers registered for the service named. */
    int workersOf(String name) {
        BrokerService s = byName.get(name);
        return s == null ? 0 : s.workers;
    }

    List<String> names() {
        return new ArrayList<>(byName.keySet());
    }

    void clear() {
        byName.clear();
    }
}
