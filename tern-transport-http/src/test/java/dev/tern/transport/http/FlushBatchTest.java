package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;

/** Answers written on the event loop go out when the loop runs its tasks, one flush per connection and turn. */
class FlushBatchTest {
    private static final HttpOptions.ConnectionLimits LIMITS = new HttpOptions.ConnectionLimits(100, 16,
            Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(30),
            1024 * 1024);

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void closeChannels() {
        for (EmbeddedChannel channel : channels) {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void anAnswerWaitsForTheEndOfTheLoopsTurnThenGoesOutInOneFlush() {
        Connection c = new Connection();
        AtomicInteger flushesDuringTurn = new AtomicInteger(-1);
        c.turn(() -> {
            c.exchange().json(HttpResponseStatus.OK, "{\"ok\":true}".getBytes(StandardCharsets.UTF_8));
            flushesDuringTurn.set(c.flushes.get());
        });

        assertThat(flushesDuringTurn.get()).as("written but not flushed during the turn").isZero();
        assertThat(c.flushes.get()).isEqualTo(1);
        FullHttpResponse response = c.channel.readOutbound();
        try {
            assertThat(response.status()).isEqualTo(HttpResponseStatus.OK);
            assertThat(response.content().toString(StandardCharsets.UTF_8)).isEqualTo("{\"ok\":true}");
        } finally {
            response.release();
        }
    }

    @Test
    void answersToSeveralConnectionsInOneTurnAreFlushedTogetherAfterIt() {
        Connection first = new Connection();
        Connection second = new Connection();
        AtomicInteger flushesDuringTurn = new AtomicInteger(-1);
        first.turn(() -> {
            first.exchange().json(HttpResponseStatus.OK, "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
            second.exchange().json(HttpResponseStatus.OK, "{\"n\":2}".getBytes(StandardCharsets.UTF_8));
            flushesDuringTurn.set(first.flushes.get() + second.flushes.get());
        });

        assertThat(flushesDuringTurn.get()).isZero();
        assertThat(first.flushes.get()).isEqualTo(1);
        assertThat(second.flushes.get()).isEqualTo(1);
        assertThat(drain(first.channel)).containsExactly("{\"n\":1}");
        assertThat(drain(second.channel)).containsExactly("{\"n\":2}");
    }

    @Test
    void aStreamWrittenSeveralTimesInOneTurnIsFlushedOnce() {
        Connection c = new Connection();
        c.turn(() -> {
            HttpExchange exchange = c.exchange();
            exchange.startStream("7_0", null, null);
            exchange.event("{\"a\":1}".getBytes(StandardCharsets.UTF_8), "7_1", false);
            exchange.event("{\"b\":2}".getBytes(StandardCharsets.UTF_8), "7_2", true);
        });

        assertThat(c.flushes.get()).isEqualTo(1);
        assertThat(String.join("", drain(c.channel))).contains("id: 7_0", "{\"a\":1}", "{\"b\":2}");
    }

    @Test
    void eachTurnHasItsOwnFlush() {
        Connection c = new Connection();
        HttpExchange stream = c.exchange();
        c.turn(() -> stream.startStream(null, null, null));
        c.turn(() -> stream.event("{\"n\":1}".getBytes(StandardCharsets.UTF_8), null, false));
        c.turn(() -> stream.event("{\"n\":2}".getBytes(StandardCharsets.UTF_8), null, true));

        assertThat(c.flushes.get()).isEqualTo(3);
        assertThat(String.join("", drain(c.channel))).contains("{\"n\":1}", "{\"n\":2}");
    }

    @Test
    void anAnswerWrittenOutsideATurnIsFlushedAtOnce() {
        Connection c = new Connection();
        // Outside a handler the embedded loop runs its tasks right after the write: no turn to wait for.
        c.exchange().json(HttpResponseStatus.OK, "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(c.flushes.get()).isEqualTo(1);
        assertThat(drain(c.channel)).containsExactly("{\"n\":1}");
    }

    @Test
    void aCloseBeforeTheTurnsFlushStillSendsWhatWasWritten() {
        Connection c = new Connection();
        c.channel.pipeline().addFirst(FlushBeforeClose.NAME, FlushBeforeClose.INSTANCE);
        c.turn(() -> {
            c.exchange().json(HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"last\":true}".getBytes(StandardCharsets.UTF_8));
            // As a close queued by another thread (a shutdown's) runs before the flush queued at the end of the turn
            // (through the pipeline: the embedded channel's own close() runs the loop's tasks first).
            c.channel.pipeline().close();
        });

        assertThat(c.channel.isOpen()).isFalse();
        assertThat(drain(c.channel)).containsExactly("{\"last\":true}");
    }

    @Test
    void bytesTheConnectionDidNotTakeAreWatchedOnceFlushed() {
        AtomicInteger watches = new AtomicInteger();
        Connection c = new Connection();
        // The peer does not read: flushes stop here, what was written stays queued.
        c.channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(ChannelHandlerContext ctx) {
            }
        });
        HttpExchange exchange = new HttpExchange(c.channel.pipeline().lastContext(), true, LIMITS, watches, () -> { });
        AtomicInteger watchesDuringTurn = new AtomicInteger(-1);
        c.turn(() -> {
            exchange.json(HttpResponseStatus.OK, "{\"held\":true}".getBytes(StandardCharsets.UTF_8));
            watchesDuringTurn.set(watches.get());
        });

        assertThat(watchesDuringTurn.get()).as("no watch before the flush").isZero();
        assertThat(exchange.queuedBytes()).isPositive();
        assertThat(watches.get()).as("a watch for the bytes the flush left queued").isEqualTo(1);
        exchange.release();
        assertThat(watches.get()).isZero();
    }

    private static List<String> drain(EmbeddedChannel channel) {
        List<String> bodies = new ArrayList<>();
        Object written;
        while ((written = channel.readOutbound()) != null) {
            try {
                if (written instanceof HttpContent content && content.content().isReadable()) {
                    bodies.add(content.content().toString(StandardCharsets.UTF_8));
                } else if (written instanceof ByteBuf buf) {
                    bodies.add(buf.toString(StandardCharsets.UTF_8));
                } else if (!(written instanceof HttpResponse) && !(written instanceof HttpContent)) {
                    throw new AssertionError("unexpected " + written);
                }
            } finally {
                ReferenceCountUtil.release(written);
            }
        }
        return bodies;
    }

    /** A connection whose flushes are counted. */
    private final class Connection {
        final AtomicInteger flushes = new AtomicInteger();
        final EmbeddedChannel channel;

        Connection() {
            channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
                @Override
                public void flush(ChannelHandlerContext ctx) {
                    flushes.incrementAndGet();
                    ctx.flush();
                }
            }, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ((Runnable) msg).run();
                }
            });
            channels.add(channel);
        }

        /**
         * Runs {@code work} as the loop runs a read (the embedded loop runs its tasks after each operation begun
         * outside a handler; inside one, as here, they wait until the read is done), then the loop's tasks.
         */
        void turn(Runnable work) {
            channel.writeInbound(work);
        }

        HttpExchange exchange() {
            return new HttpExchange(channel.pipeline().lastContext(), true, LIMITS, new AtomicInteger(), () -> { });
        }
    }
}
