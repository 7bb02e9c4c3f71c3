package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.majordomo.ReplyStream;
import io.zmtp.wire.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;

/**
 * {@code titanic.reply} (the guide's titanic_reply): {@code uuid} is answered {@code 200 | reply...}
 * when the reply is stored, 300 while it is pending, 400 for an unknown or closed uuid; as often
 * as asked (the store keeps the reply until {@code titanic.close}).
 */
final class TitanicReplyService extends TspService {
    /** Its name with the broker (9/TSP). */
    static final String NAME = "titanic.reply";
    private static final Logger log = LoggerFactory.getLogger(TitanicReplyService.class);

    TitanicReplyService(TitanicStore store, Executor serverLoop, EventReporter<TitanicEvent> events) {
        super(NAME, store, serverLoop, events);
    }

    @Override
    public void handle(Frames request, ReplyStream replies) {
        String uuid = uuidOf(request, replies);
        if (uuid == null) {
            return;
        }
        StoreCall.of(() -> store.reply(uuid)).whenComplete((r, error) -> {
            if (error != null) {
                log.debug("titanic.reply: reading the store failed", StoreCall.unwrap(error));
                refuse(replies, TitanicStatus.ERROR, storeFailure(error));
            } else if (r instanceof TitanicStore.ReplyLookup.Ready ready) {
                replies.finish(ready.reply().push(TitanicStatus.OK.frame()));
            } else if (r instanceof TitanicStore.ReplyLookup.Pending) {
                replies.finish(TitanicStatus.PENDING.frame());
            } else {
                replies.finish(TitanicStatus.UNKNOWN.frame());
            }
        });
    }
}
