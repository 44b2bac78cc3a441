package dev.tern.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Socket;

import org.junit.jupiter.api.Test;

import dev.tern.testing.RedisServer;

class RedisServerTest {

    @Test
    void aStartedServerAnswersOnItsLoopbackPortAndIsGoneOnceStopped() throws Exception {
        int port;
        try (RedisServer server = RedisServer.start(); Redis redis = Redis.connect(server.uri())) {
            port = server.port();
            assertThat(redis.commands().ping()).isEqualTo("PONG");
            assertThat(redis.commands().configGet("save")).containsEntry("save", "");
        }
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            }
        }).isInstanceOf(java.io.IOException.class);
    }

    @Test
    void aStoppedServerStartsAgainOnTheSamePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            server.stop();
            server.startAgain();
            assertThat(server.port()).isEqualTo(port);
            try (Redis redis = Redis.connect(server.uri())) {
                assertThat(redis.commands().ping()).isEqualTo("PONG");
            }
        }
    }
}
