package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.ReadyWorkers;

import java.nio.charset.StandardCharsets;

/**
 * A service the broker knows, with the two halves of its state: the requests waiting for it (kept
 * by the {@link RequestQueue}) and the workers registered for it (kept by the {@link WorkerTable}).
 * The broker keeps a service while it has either, and forgets it when it has neither
 * ({@link #unused()}). Used on the broker's loop only.
 */
final class BrokerService {
    final String name;
    /** The name as the service frame of a reply (shared: never written to). */
    final byte[] nameBytes;

    // The request queue's: this service's FIFO of queued requests, and what they add up to.
    RequestQueue.QueuedRequest head;
    RequestQueue.QueuedRequest tail;
    int count;
    long bytes;
    /** Since when the service has had queued requests and no worker (its requests age from then). */
    long orphanedSince;

    // The worker table's: the idle workers, the one idle longest first (the kit's LRU), and how many are registered.
    final ReadyWorkers<WorkerTable.Worker> idle = new ReadyWorkers<>();
    int workers;

    BrokerService(String name) {
        this.name = name;
        this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether nothing is queued for it and no worker is registered for it: the broker forgets it. */
    boolean unused() {
        return head == null && workers == 0;
    }
}
