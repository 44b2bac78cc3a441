package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;

/** An exchange's locking against the locks of what it calls back. */
class HttpExchangeTest {
    private static final HttpOptions.ConnectionLimits LIMITS = new HttpOptions.ConnectionLimits(100, 16,
            Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(30),
            1024 * 1024);

    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());

    @AfterEach
    void closeChannel() {
        channel.finishAndReleaseAll();
    }

    @Test
    void theClientGoneActionRunsOutsideTheExchangesLock() throws Exception {
        // As a 2026-07-28 listen's: the action closes the request's channel, which takes the channel's lock, under
        // which another thread (a list change, a resource update) may be writing a notification to this exchange.
        HttpExchange exchange = new HttpExchange(channel.pipeline().lastContext(), true, LIMITS, new AtomicInteger(),
                () -> { });
        Object channelLock = new Object();
        exchange.onClientGone(() -> {
            synchronized (channelLock) {
                channelLock.notifyAll();
            }
        });
        CountDownLatch notifying = new CountDownLatch(1);
        Thread notifier = Thread.ofPlatform().daemon().start(() -> {
            synchronized (channelLock) {
                notifying.countDown();
                sleep(300);
                exchange.event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}"
                        .getBytes(StandardCharsets.UTF_8), null, false);
            }
        });
        assertThat(notifying.await(10, TimeUnit.SECONDS)).isTrue();
        Thread gone = Thread.ofPlatform().daemon().start(exchange::clientGone);

        gone.join(10_000);
        notifier.join(10_000);
        assertThat(gone.isAlive()).as("client gone, waiting for the channel's lock").isFalse();
        assertThat(notifier.isAlive()).as("notifier, waiting for the exchange's lock").isFalse();
        assertThat(exchange.isOpen()).isFalse();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
