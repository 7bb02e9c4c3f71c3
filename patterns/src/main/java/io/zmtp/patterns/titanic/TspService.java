package io.zmtp.patterns.titanic;

import io.zmtp.patterns.kit.EventReporter;
import io.zmtp.patterns.majordomo.MajordomoHandler;
import io.zmtp.patterns.majordomo.ReplyStream;
import io.zmtp.wire.FrameText;
import io.zmtp.wire.Frames;
import io.zmtp.wire.PeerFailureLog;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executor;

/**
 * What the three TSP services of the Titanic server share: a name, the store, the server's loop
 * (events and the dispatcher live there), and the two ways they answer badly: a refusal (400 for a
 * malformed request, 500 when the store cannot), and the uuid frame of {@code titanic.reply} and
 * {@code titanic.close} checked. Each service is a {@link MajordomoHandler} run by Majordomo
 * workers on their own loops with {@code Runnable::run} as executor: a handler never blocks, it
 * answers when the store's future completes.
 */
abstract class TspService implements MajordomoHandler {
    private static final PeerFailureLog peerLog = PeerFailureLog.get(TspService.class);

    /** The service name ({@code titanic.request}, ...). */
    final String name;
    final TitanicStore store;
    /** Runs a task on the server's loop. */
    final Executor serverLoop;
    private final EventReporter<TitanicEvent> events;

    TspService(String name, TitanicStore store, Executor serverLoop, EventReporter<TitanicEvent> events) {
        this.name = name;
        this.store = store;
        this.serverLoop = serverLoop;
        this.events = events;
    }

    /** Answers {@code status} alone, and reports why (a 400 also to the peer failure log, escaped). */
    final void refuse(ReplyStream replies, TitanicStatus status, String reason) {
        if (status == TitanicStatus.UNKNOWN) {
            peerLog.warn("{} answers {}: {}", name, status.code(), FrameText.escape(reason));
        }
        replies.finish(status.frame());
        serverLoop.execute(() -> events.report(() -> new TitanicEvent.Refused(name, status, reason)));
    }

    /**
     * Why the store failed, for a 500's event: the failure's message (the store's own words, which
     * name no password), without the exception's class. The store logged the failure itself (an
     * outage once, a failed operation with its trace), so the services log it at DEBUG only.
     */
    static String storeFailure(Throwable error) {
        Throwable cause = StoreCall.unwrap(error);
        return "store failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString());
    }

    /** The one uuid frame of the request, in lower case; null (answered 400) if the request is not that. */
    final String uuidOf(Frames request, ReplyStream replies) {
        if (request.size() != 1) {
            refuse(replies, TitanicStatus.UNKNOWN, "expected one uuid frame, got " + request.size());
            return null;
        }
        String text = new String(request.frame(0), StandardCharsets.ISO_8859_1);
        if (!TitanicIds.isValid(text)) {
            refuse(replies, TitanicStatus.UNKNOWN, "not a uuid of 32 hex characters: " + text);
            return null;
        }
        return text.toLowerCase(Locale.ROOT);
    }
}
