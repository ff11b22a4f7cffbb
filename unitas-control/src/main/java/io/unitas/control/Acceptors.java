package io.unitas.control;

import java.util.concurrent.TimeUnit;

import com.linecorp.armeria.common.Flags;
import com.linecorp.armeria.common.util.ThreadFactories;
import com.linecorp.armeria.server.ServerBuilder;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.Future;

/**
 * A server's acceptor threads, stopped without a quiet period. Armeria stops the group that accepts a port's
 * connections with Netty's default graceful shutdown and waits for it, and that waits out a quiet period of 2 s on
 * every stop, idle or not: two seconds of every close of a control plane or a relay (each test's, each restart's).
 * An acceptor has nothing left to run once its port is closed; requests in flight are on the worker threads, which
 * the server's own graceful shutdown drains.
 */
final class Acceptors {

    private Acceptors() {}

    /** Makes {@code sb}'s server accept on threads that stop at once (as Armeria's own do, on its transport). */
    static void stopPromptly(ServerBuilder sb) {
        IoHandlerFactory io = switch (Flags.transportType()) {
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
            default -> null; // another transport keeps Armeria's acceptors
        };
        if (io == null) {
            return;
        }
        sb.bossGroupFactory(name -> new MultiThreadIoEventLoopGroup(
                1, ThreadFactories.newEventLoopThreadFactory("armeria-boss-" + name, false), io) {
            @Override
            public Future<?> shutdownGracefully() { // the one Armeria calls
                return shutdownGracefully(0, 2, TimeUnit.SECONDS);
            }
        });
    }
}
