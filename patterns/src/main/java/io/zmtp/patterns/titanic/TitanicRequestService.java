package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.majordomo.ReplyStream;
import io.zmtp.wire.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code titanic.request} (the guide's titanic_request): {@code service | body...} is checked (at
 * least a service and a body frame, a service name of 1 to {@link TitanicSettings#maxServiceNameBytes()}
 * bytes, at most {@link TitanicSettings#maxRequestBytes()} in all; else 400), given a new uuid and
 * stored. Only once the store says it is durable does the dispatcher get it and the client hear
 * {@code 200 | uuid}; a full store answers 500, as does a store that failed.
 */
final class TitanicRequestService extends TspService {
    /** Its name with the broker (9/TSP). */
    static final String NAME = "titanic.request";
    private static final Logger log = LoggerFactory.getLogger(TitanicRequestService.class);

    private final TitanicSettings settings;
    private final TitanicDispatcher dispatcher;
    private final AtomicLong stored;

    TitanicRequestService(TitanicSettings settings, TitanicStore store, TitanicDispatcher dispatcher,
            Executor serverLoop, EventReporter<TitanicEvent> events, AtomicLong stored) {
        super(NAME, store, serverLoop, events);
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.stored = stored;
    }

    @Override
    public void handle(Frames request, ReplyStream replies) {
        if (request.size() < 2) {
            refuse(replies, TitanicStatus.UNKNOWN, "a request needs a service frame and a body ("
                    + request.size() + " frame(s))");
            return;
        }
        byte[] name = request.frame(0);
        if (name.length == 0 || name.length > settings.maxServiceNameBytes()) {
            refuse(replies, TitanicStatus.UNKNOWN, "service name of " + name.length + " bytes");
            return;
        }
        long bytes = request.byteSize();
        if (bytes > settings.maxRequestBytes()) {
            refuse(replies, TitanicStatus.UNKNOWN, "request of " + bytes + " bytes, over maxRequestBytes "
                    + settings.maxRequestBytes());
            return;
        }
        String service = new String(name, StandardCharsets.UTF_8);
        Frames body = request.dropFirst(1);
        String uuid = TitanicIds.newId();
        StoreCall.of(() -> store.putRequest(uuid, service, body)).whenComplete((v, error) -> {
            if (error != null) {
                Throwable cause = StoreCall.unwrap(error);
                if (cause instanceof TitanicStoreFullException) {
                    refuse(replies, TitanicStatus.ERROR, "store full: " + cause.getMessage());
                } else {
                    log.debug("titanic.request: storing failed", cause);
                    refuse(replies, TitanicStatus.ERROR, storeFailure(cause));
                }
                return;
            }
            stored.incrementAndGet();
            // Durable: the dispatcher gets the request (first, so a close that follows the 200
            // finds it), and the client hears 200.
            serverLoop.execute(() -> dispatcher.newRequest(uuid, service, body, bytes));
            replies.finish(TitanicStatus.OK.frame(), uuid.getBytes(StandardCharsets.US_ASCII));
        });
    }
}
