package io.zmtp.patterns.majordomo;

import io.zmtp.patterns.kit.RequestHandler;
import io.zmtp.wire.ZmtpMessage;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static io.zmtp.patterns.PatternTesting.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker's handler on its executor, answering through a reply stream: partials joined or streamed, failures. */
class StreamedReplyTest {
    /** The partial replies a 0.2 worker sends, as strings. */
    final List<List<String>> sent = new CopyOnWriteArrayList<>();
    final RequestHandler.PartialReplies streaming = new RequestHandler.PartialReplies() {
        @Override
        public boolean supported() {
            return true;
        }

        @Override
        public void send(ZmtpMessage partial) {
            sent.add(strings(partial));
        }
    };

    static List<String> get(StreamedReply reply) throws Exception {
        return strings(reply.done.get(10, TimeUnit.SECONDS));
    }

    @Test
    void mdp01JoinsThePartialRepliesInFrontOfTheFinalOne() throws Exception {
        StreamedReply reply = new StreamedReply(MdpVersion.V0_1, "svc", RequestHandler.PartialReplies.NONE);
        reply.partial("a");
        reply.partial("b", "c");
        reply.finish("d");
        assertEquals(List.of("a", "b", "c", "d"), get(reply));
    }

    @Test
    void mdp02SendsEachPartialReplyAsItComes() throws Exception {
        StreamedReply reply = new StreamedReply(MdpVersion.V0_2, "svc", streaming);
        reply.partial("a");
        reply.partial("b");
        assertEquals(List.of(List.of("a"), List.of("b")), sent);
        reply.finish("c");
        assertEquals(List.of("c"), get(reply));
    }

    @Test
    void afterTheFinalReplyNothingMoreGoesAndALateFailureIsOnlyLogged() throws Exception {
        StreamedReply reply = new StreamedReply(MdpVersion.V0_2, "svc", streaming);
        reply.finish("done");
        assertThrows(IllegalStateException.class, () -> reply.finish("again"));
        assertThrows(IllegalStateException.class, () -> reply.partial("late"));
        reply.fail(new RuntimeException("late"));
        assertEquals(List.of("done"), get(reply));
        assertTrue(sent.isEmpty());
    }

    @Test
    void theHandlerRunsOnTheExecutorAndAThrowOrARefusalFailsTheRequest() throws Exception {
        List<Runnable> queued = new CopyOnWriteArrayList<>();
        Executor later = queued::add;
        ExecutorHandler echo = new ExecutorHandler(MajordomoHandler.echo(), () -> later, MdpVersion.V0_1, "svc");
        var done = echo.handle(ZmtpMessage.ofStrings("hi")).toCompletableFuture();
        assertEquals(1, queued.size(), "handed to the executor, not run here");
        queued.get(0).run();
        assertEquals(List.of("hi"), strings(done.get(10, TimeUnit.SECONDS)));

        ExecutorHandler throwing = new ExecutorHandler((request, replies) -> {
            throw new IllegalArgumentException("bad");
        }, () -> Runnable::run, MdpVersion.V0_1, "svc");
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> throwing.handle(ZmtpMessage.ofStrings("x")).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());

        Executor refusing = r -> {
            throw new RejectedExecutionException("shut down");
        };
        ExecutorHandler refused = new ExecutorHandler(MajordomoHandler.echo(), () -> refusing, MdpVersion.V0_1, "svc");
        ExecutionException r = assertThrows(ExecutionException.class,
                () -> refused.handle(ZmtpMessage.ofStrings("x")).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, r.getCause());
    }
}
