package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcResult;
import dev.tern.protocol.MessageCodec;
import dev.tern.protocol.WireFormat;

import org.msgpack.core.MessagePack;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.cbor.CBORMapper;

/** CBOR and MessagePack bodies at the MCP endpoint, negotiated by Content-Type and Accept. */
class EncodingsOverHttpTest {
    private static final JsonRpcCodec JSON = JsonRpcCodec.withDefaults();
    private static Served served;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws InterruptedException {
        served = new Served();
    }

    @AfterAll
    static void stop() {
        served.close();
    }

    private static byte[] getUser(MessageCodec codec, String id) {
        String json = Mcp.request(1, "tools/call", Mcp.meta(Mcp.toolCall("get_user", Mcp.args("id", id))));
        return codec.encode(((Decoded.Single) JSON.decode(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .message());
    }

    private HttpResponse<byte[]> post(String contentType, String accept, byte[] body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/mcp"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", contentType).header("Accept", accept)
                .header("MCP-Protocol-Version", Mcp.MODERN).header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "get_user")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private static JsonRpcMessage read(MessageCodec codec, byte[] body) {
        Decoded decoded = codec.decode(body, 0, body.length);
        assertThat(decoded).isInstanceOf(Decoded.Single.class);
        return ((Decoded.Single) decoded).message();
    }

    /** The tree of a body, read by the format's own library rather than by the codec under test. */
    private static JsonNode tree(WireFormat format, byte[] body) throws java.io.IOException {
        if (format == WireFormat.CBOR) {
            return new CBORMapper().readTree(body);
        }
        try (var unpacker = MessagePack.newDefaultUnpacker(body)) {
            return JSON.mapper().readTree(unpacker.unpackValue().toJson());
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aBinaryRequestIsAnsweredInItsFormatWhenTheClientAcceptsIt(WireFormat format) throws Exception {
        MessageCodec codec = MessageCodec.of(format, JSON);
        HttpResponse<byte[]> response = post(format.mediaType(),
                format.mediaType() + ", application/json, text/event-stream", getUser(codec, "42"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue(format.mediaType());
        JsonRpcResult result = (JsonRpcResult) read(codec, response.body());
        assertThat(result.result().path("content").path(0).path("text").asString()).contains("user42");
        assertThat(result.result().path("resultType").asString()).isEqualTo("complete");
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aBinaryAnswerCarriesServerTimingAsAJsonOneDoes(WireFormat format) throws Exception {
        try (Served timed = new Served(b -> b.serverTiming(true))) {
            MessageCodec codec = MessageCodec.of(format, JSON);
            URI mcp = URI.create("http://127.0.0.1:" + timed.port() + "/mcp");
            HttpRequest.Builder request = HttpRequest.newBuilder(mcp).timeout(Duration.ofSeconds(20))
                    .header("MCP-Protocol-Version", Mcp.MODERN).header("Mcp-Method", "tools/call").header("Mcp-Name", "get_user");
            HttpResponse<byte[]> binary = http.send(request.copy().header("Content-Type", format.mediaType())
                    .header("Accept", format.mediaType() + ", application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(getUser(codec, "3"))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            HttpResponse<byte[]> json = http.send(request.copy().header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(getUser(JSON, "3"))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());

            assertThat(binary.headers().firstValue("content-type")).hasValue(format.mediaType());
            String part = ";dur=\\d+\\.\\d{3}";
            String pattern = "parse" + part + ", queue" + part + ", exec" + part + ", ser" + part;
            assertThat(binary.headers().firstValue("server-timing").orElse("none")).matches(pattern);
            assertThat(json.headers().firstValue("server-timing").orElse("none")).matches(pattern);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aClientThatDoesNotAcceptTheFormatIsAnsweredInJson(WireFormat format) throws Exception {
        HttpResponse<byte[]> response = post(format.mediaType(), "application/json, text/event-stream",
                getUser(MessageCodec.of(format, JSON), "7"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        JsonRpcResult result = (JsonRpcResult) read(JSON, response.body());
        assertThat(result.result().path("content").path(0).path("text").asString()).contains("user7");
    }

    @ParameterizedTest
    @EnumSource(value = WireFormat.class, names = {"CBOR", "MSGPACK"})
    void aMalformedBinaryBodyGetsAParseErrorInItsFormat(WireFormat format) throws Exception {
        MessageCodec codec = MessageCodec.of(format, JSON);
        byte[] good = getUser(codec, "1");
        HttpResponse<byte[]> response = post(format.mediaType(), format.mediaType() + ", application/json, text/event-stream",
                Arrays.copyOf(good, good.length - 4));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("content-type")).hasValue(format.mediaType());
        // read as a tree: a response with a null id is no message a client could have matched
        JsonNode failure = tree(format, response.body());
        assertThat(failure.path("id").isNull()).isTrue();
        assertThat(failure.path("error").path("code").asInt()).isEqualTo(ErrorCodes.PARSE_ERROR);
        assertThat(failure.path("error").path("message").asString())
                .contains("malformed " + (format == WireFormat.CBOR ? "CBOR" : "MessagePack"));

        // and the server goes on serving
        assertThat(post("application/json", "application/json, text/event-stream",
                getUser(JSON, "2")).statusCode()).isEqualTo(200);
    }

    @Test
    void aBodyOfAnotherMediaTypeIsRefused() throws Exception {
        HttpResponse<byte[]> response = post("application/x-protobuf", "application/json, text/event-stream",
                new byte[] {1, 2, 3});
        assertThat(response.statusCode()).isEqualTo(415);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    }
}
