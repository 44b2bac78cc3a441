package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;

class IdleTimeoutTest {
    private final List<Object> events = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel();

    IdleTimeoutTest() {
        channel.freezeTime();
        channel.pipeline().addLast(new IdleTimeout(Duration.ofMillis(400)), new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
            }
        });
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private void pass(long millis) {
        for (long i = 0; i < millis; i += 10) {
            channel.advanceTimeBy(10, TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
        }
    }

    @Test
    void aSilentConnectionIsIdleAfterTheTimeoutAndNotBefore() {
        pass(390);
        assertThat(events).isEmpty();
        pass(110);
        assertThat(events).containsExactly(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    }

    @Test
    void readsAndWritesKeepItBusyAndTheTimeoutCountsFromTheLast() {
        for (int i = 0; i < 10; i++) {
            pass(200);
            if (i % 2 == 0) {
                channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));
                channel.<Object>readInbound();
            } else {
                channel.writeOutbound(Unpooled.wrappedBuffer(new byte[] {2}));
                channel.releaseOutbound();
            }
        }
        assertThat(events).isEmpty();
        pass(390);
        assertThat(events).isEmpty();
        pass(110);
        assertThat(events).hasSize(1);
    }

    @Test
    void aLongSilenceIsReportedOncePerTimeout() {
        pass(2_050);
        assertThat(events).as("at 0.4, 0.8, 1.2, 1.6 and 2.0 s").hasSize(5);
    }

    @Test
    void noCheckRunsOnceTheConnectionIsClosed() {
        channel.close();
        assertThat(channel.hasPendingTasks()).isFalse();
        pass(1_000);
        assertThat(events).isEmpty();
    }
}
