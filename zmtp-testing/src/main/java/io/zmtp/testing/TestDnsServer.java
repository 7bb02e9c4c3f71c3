package io.zmtp.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A name server for tests, on a loopback UDP port the system picks: answers A and AAAA questions
 * from records the test sets and changes while it runs (each with a TTL of 1 s unless set), NXDOMAIN
 * for names it does not know, and in silent mode answers nothing at all (a name server that hangs).
 * Every question it is asked is logged with the time it arrived.
 */
public final class TestDnsServer implements AutoCloseable {
    /** A question asked: the name (lowercase, no final dot), its type, and when it arrived ({@link System#nanoTime}). */
    public record Question(String name, DnsRecordType type, long nanos) {
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("test-dns", true), NioIoHandler.newFactory());
    private final Channel channel;
    private final Map<String, List<InetAddress>> records = new ConcurrentHashMap<>();
    private final List<Question> questions = new CopyOnWriteArrayList<>();
    private volatile boolean silent;
    private volatile int ttlSeconds = 1;

    /** Starts a server on 127.0.0.1 and a port the system picks. */
    public TestDnsServer() {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new Answering());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).syncUninterruptibly().channel();
    }

    /** Where the server listens: the address to give a resolver. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Sets (replaces) the addresses of {@code name}, answered in this order; none: the name is unknown. */
    public void set(String name, String... addresses) {
        List<InetAddress> l = new ArrayList<>();
        for (String a : addresses) {
            try {
                l.add(InetAddress.getByName(a)); // IP literals only: no lookup
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("not an IP literal: " + a, e);
            }
        }
        if (l.isEmpty()) {
            records.remove(key(name));
        } else {
            records.put(key(name), List.copyOf(l));
        }
    }

    /** The TTL of the records answered from now on (default 1 s). */
    public void ttlSeconds(int ttl) {
        this.ttlSeconds = ttl;
    }

    /** Silent: questions are logged and never answered. */
    public void silent(boolean silent) {
        this.silent = silent;
    }

    /** Every question asked so far, in the order they arrived. */
    public List<Question> questions() {
        return List.copyOf(questions);
    }

    /** The questions of type A about {@code name} asked so far. */
    public List<Question> questionsA(String name) {
        String k = key(name);
        List<Question> l = new ArrayList<>();
        for (Question q : questions) {
            if (q.name().equals(k) && q.type().equals(DnsRecordType.A)) {
                l.add(q);
            }
        }
        return l;
    }

    private static String key(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    private final class Answering extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
            DnsQuestion q = query.recordAt(DnsSection.QUESTION);
            if (q == null) {
                return;
            }
            String name = key(q.name());
            questions.add(new Question(name, q.type(), System.nanoTime()));
            if (silent) {
                return;
            }
            DatagramDnsResponse r = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            r.setAuthoritativeAnswer(true);
            r.setRecursionAvailable(true);
            r.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
            List<InetAddress> addresses = records.get(name);
            if (addresses == null) {
                r.setCode(DnsResponseCode.NXDOMAIN);
            } else {
                for (InetAddress a : addresses) {
                    boolean wanted = q.type().equals(DnsRecordType.A) ? a instanceof Inet4Address
                            : q.type().equals(DnsRecordType.AAAA) && a instanceof Inet6Address;
                    if (wanted) {
                        r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), q.type(), ttlSeconds,
                                Unpooled.wrappedBuffer(a.getAddress())));
                    }
                }
            }
            ctx.writeAndFlush(r);
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
