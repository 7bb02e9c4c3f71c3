package io.zmtp.socket;

import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The channels one socket has open, made or accepted, from the moment they exist until they
 * close, and its listeners that are closing: the socket has closed only once all are gone. On the
 * socket's event loop; each that goes is reported ({@code gone}), so the close can see whether it
 * is done.
 */
final class OpenChannels {
    private final Set<Channel> channels = new HashSet<>();
    private final List<Future<?>> closingListeners = new ArrayList<>();
    private final Runnable gone;

    OpenChannels(Runnable gone) {
        this.gone = gone;
    }

    /** A channel now exists: tracked until it closes. */
    void opened(Channel ch) {
        channels.add(ch);
        ch.closeFuture().addListener(f -> {
            channels.remove(ch);
            gone.run();
        });
    }

    /** A listener is closing: tracked until {@code closed} completes. */
    void listenerClosing(Future<?> closed) {
        closingListeners.add(closed);
        closed.addListener(f -> {
            closingListeners.remove(closed);
            gone.run();
        });
    }

    /** The open channels (a copy). */
    List<Channel> list() {
        return new ArrayList<>(channels);
    }

    /** Closes every open channel but those {@code keep} accepts. */
    void closeAllBut(java.util.function.Predicate<Channel> keep) {
        for (Channel ch : list()) {
            if (!keep.test(ch)) {
                ch.close();
            }
        }
    }

    /** Whether every channel has closed, listeners included. */
    boolean allClosed() {
        return channels.isEmpty() && closingListeners.isEmpty();
    }
}
