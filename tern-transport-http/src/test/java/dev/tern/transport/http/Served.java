package dev.tern.transport.http;

import java.util.function.UnaryOperator;

/** A test directory server on 127.0.0.1, an ephemeral port, until closed. */
final class Served implements AutoCloseable {
    final DirectoryFixture fixture = new DirectoryFixture();
    final HttpServerTransport transport;

    Served() throws InterruptedException {
        this(b -> b);
    }

    Served(UnaryOperator<HttpServerTransport.Builder> config) throws InterruptedException {
        HttpServerTransport.Builder b = HttpServerTransport.builder(fixture.server).host("127.0.0.1").port(0);
        transport = config.apply(b).build().start();
    }

    int port() {
        return transport.port();
    }

    @Override
    public void close() {
        transport.close();
        fixture.server.close();
    }
}
