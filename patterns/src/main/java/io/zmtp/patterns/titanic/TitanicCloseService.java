package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.majordomo.ReplyStream;
import io.zmtp.wire.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;

/**
 * {@code titanic.close} (the guide's titanic_close): {@code uuid} is forgotten, by the dispatcher
 * at once (a request closed before its dispatch never runs) and by the store; 200, also for an
 * unknown uuid.
 */
final class TitanicCloseService extends TspService {
    /** Its name with the broker (9/TSP). */
    static final String NAME = "titanic.close";
    private static final Logger log = LoggerFactory.getLogger(TitanicCloseService.class);

    private final TitanicDispatcher dispatcher;

    TitanicCloseService(TitanicStore store, TitanicDispatcher dispatcher, Executor serverLoop,
            EventReporter<TitanicEvent> events) {
        super(NAME, store, serverLoop, events);
        this.dispatcher = dispatcher;
    }

    @Override
    public void handle(Frames request, ReplyStream replies) {
        String uuid = uuidOf(request, replies);
        if (uuid == null) {
            return;
        }
        serverLoop.execute(() -> dispatcher.forget(uuid));
        StoreCall.of(() -> store.close(uuid)).whenComplete((v, error) -> {
            if (error != null) {
                log.debug("titanic.close: the store failed", StoreCall.unwrap(error));
                refuse(replies, TitanicStatus.ERROR, storeFailure(error));
            } else {
                replies.finish(TitanicStatus.OK.frame());
            }
        });
    }
}
