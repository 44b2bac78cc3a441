package dev.tern.it;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * The SDK's {@link StdioClientTransport}, recording every message sent and received in wire order, and able to send
 * messages the SDK's client has no method for (such as {@code notifications/cancelled}). Also collects the server's
 * stderr.
 */
final class JavaSdkRecordingTransport implements McpClientTransport {
    private final StdioClientTransport delegate;
    private final List<JSONRPCMessage> sent = new CopyOnWriteArrayList<>();
    private final List<JSONRPCMessage> received = new CopyOnWriteArrayList<>();
    private final StringBuffer stderr = new StringBuffer();

    JavaSdkRecordingTransport(List<String> command) {
        ServerParameters params = ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size()))
                .build();
        this.delegate = new StdioClientTransport(params, new JacksonMcpJsonMapper(JsonMapper.builder().build()));
        this.delegate.setStdErrorHandler(line -> stderr.append(line).append('\n'));
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        return delegate.connect(incoming -> handler.apply(incoming.doOnNext(received::add)));
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
        sent.add(message);
        return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    /** Messages the client sent, in order. */
    List<JSONRPCMessage> sent() {
        return List.copyOf(sent);
    }

    /** Messages the server sent, in the order they were read. */
    List<JSONRPCMessage> received() {
        return List.copyOf(received);
    }

    String stderr() {
        return stderr.toString();
    }

    /** The id of the last {@code tools/call} request the client sent for {@code tool}. */
    Optional<Object> lastToolCallId(String tool) {
        Object id = null;
        for (JSONRPCMessage m : sent) {
            if (m instanceof McpSchema.JSONRPCRequest r && r.method().equals(McpSchema.METHOD_TOOLS_CALL)
                    && r.params() instanceof McpSchema.CallToolRequest call && call.name().equals(tool)) {
                id = r.id();
            }
        }
        return Optional.ofNullable(id);
    }

    /** The server's messages matching {@code filter}, in order. */
    List<JSONRPCMessage> received(Predicate<JSONRPCMessage> filter) {
        return received.stream().filter(filter).toList();
    }
}
