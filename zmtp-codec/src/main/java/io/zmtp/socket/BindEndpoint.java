package io.zmtp.socket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.zmtp.transport.Endpoint;
import io.zmtp.transport.IoTransport;
import io.zmtp.wire.ZmtpCodec;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A bound tcp:// or ipc:// endpoint: a server channel on the socket's event loop whose accepted
 * connections get a {@link ZmtpCodec} and a {@link PeerHandler}.
 */
final class BindEndpoint {
    private final ZmtpSocket socket;
    private final Endpoint requested;
    private Endpoint resolved;
    private Channel server;
    private String ipcPath;

    BindEndpoint(ZmtpSocket socket, Endpoint requested) {
        this.socket = socket;
        this.requested = requested;
    }

    String resolved() {
        return resolved == null ? requested.toString() : resolved.toString();
    }

    Future<String> bind() {
        Promise<String> p = socket.loop.newPromise();
        IoTransport io = socket.context.transport();
        ServerBootstrap b = new ServerBootstrap().group(socket.loop, socket.loop)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        socket.channelOpened(ch);
                        ch.pipeline().addLast(new ZmtpCodec(socket.zmtpOptions()),
                                new PeerHandler(socket, resolved(), null));
                        socket.event(SocketEvent.Type.ACCEPTED, resolved(), String.valueOf(ch.remoteAddress()), null, null);
                    }
                });
        ChannelFuture f;
        if (requested.transport() == Endpoint.Transport.TCP) {
            b.channel(io.tcpServerChannel())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true);
            f = b.bind(requested.bindAddress());
        } else {
            try {
                ipcPath = ipcPath(requested.address());
            } catch (IOException e) {
                p.tryFailure(e);
                return p;
            }
            b.channel(io.ipcServerChannel());
            f = b.bind(io.ipcAddress(ipcPath));
        }
        f.addListener((ChannelFuture cf) -> {
            if (!cf.isSuccess()) {
                String reason = cf.cause().getMessage();
                socket.event(SocketEvent.Type.BIND_FAILED, requested.toString(), null, reason, null);
                p.tryFailure(new IOException("cannot bind " + requested + ": " + reason, cf.cause()));
                return;
            }
            server = cf.channel();
            if (requested.transport() == Endpoint.Transport.TCP) {
                resolved = requested.withPort(((InetSocketAddress) server.localAddress()).getPort());
            } else {
                resolved = requested.withPath(ipcPath);
            }
            socket.event(SocketEvent.Type.LISTENING, resolved.toString(), null, null, null);
            p.trySuccess(resolved.toString());
        });
        return p;
    }

    /** ipc://* binds a fresh path; a stale socket file at the path is removed, as libzmq does. */
    private static String ipcPath(String address) throws IOException {
        if (address.equals("*")) {
            Path dir = Files.createTempDirectory("zmtp-ipc");
            dir.toFile().deleteOnExit();
            return dir.resolve("socket").toString();
        }
        File f = new File(address);
        if (f.exists() && !f.isDirectory()) {
            Files.delete(f.toPath());
        }
        return address;
    }

    /** Stops listening; with {@code closeAccepted}, also closes the connections accepted here. */
    Future<?> close(boolean closeAccepted) {
        Promise<Void> done = socket.loop.newPromise();
        if (server == null) {
            done.trySuccess(null);
            return done;
        }
        socket.bindClosing(this);
        server.close().addListener(f -> {
            if (ipcPath != null) {
                new File(ipcPath).delete();
            }
            socket.event(SocketEvent.Type.UNBOUND, resolved(), null, null, null);
            done.trySuccess(null);
        });
        if (closeAccepted) {
            for (Pipe p : new java.util.ArrayList<>(socket.pipes())) {
                if (resolved().equals(p.endpoint())) {
                    p.close();
                }
            }
        }
        return done;
    }

    Future<?> closeFuture() {
        return server.closeFuture();
    }
}
