package dev.tern.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Version;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import dev.tern.examples.UserDirectory;
import dev.tern.protocol.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.EmbeddedResource;
import io.modelcontextprotocol.spec.McpSchema.GetPromptRequest;
import io.modelcontextprotocol.spec.McpSchema.GetPromptResult;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.modelcontextprotocol.spec.McpSchema.InitializeResult;
import io.modelcontextprotocol.spec.McpSchema.ListToolsResult;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceRequest;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceResult;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.TextResourceContents;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.ProtocolVersions;
import tools.jackson.core.type.TypeReference;

/**
 * Interop over Streamable HTTP between {@code tern serve} (the user-directory example) and the official MCP Java SDK
 * client: {@code McpClient.sync} with {@code HttpClientStreamableHttpTransport}, which sends its requests with the
 * JDK {@link HttpClient}, here set to HTTP/2: for an {@code http://} URL it asks to upgrade to h2c on its first
 * request (the initialize POST) and multiplexes the rest on that connection. A recording HttpClient notes the HTTP
 * version and status of every response, so the test checks the protocol it claims to test. {@link
 * UserDirectoryOverHttp} takes the version as a parameter, for other variants.
 */
class JavaSdkClientHttpTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Implementation CLIENT_INFO =
            Implementation.builder("tern-java-sdk-http-interop-test", "1.0.0").build();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private static TernProcess tern;

    @BeforeAll
    static void startTern() throws Exception {
        tern = TernProcess.http("user-directory");
    }

    @AfterAll
    static void stopTern() throws Exception {
        if (tern != null) {
            String stderr = tern.stderr();
            tern.close();
            assertNoServerErrors(stderr);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OverHttp11 extends UserDirectoryOverHttp {
        OverHttp11() {
            super(Version.HTTP_1_1);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OverHttp2 extends UserDirectoryOverHttp {
        OverHttp2() {
            super(Version.HTTP_2);
        }
    }

    /**
     * One SDK session against {@code tern serve}, with the JDK HttpClient set to {@code version}; the last test
     * closes it.
     */
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    abstract static class UserDirectoryOverHttp {
        private final Version version;
        private final UserDirectory directory = UserDirectory.generate(1_000);
        private final RecordingHttpClient.Builder http;
        private McpSyncClient client;
        private InitializeResult initialized;

        UserDirectoryOverHttp(Version version) {
            this.version = version;
            this.http = new RecordingHttpClient.Builder(HttpClient.newBuilder().version(version));
        }

        @BeforeAll
        void connect() {
            HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(tern.url())
                    .clientBuilder(http)
                    .connectTimeout(TIMEOUT)
                    .build();
            client = McpClient.sync(transport)
                    .clientInfo(CLIENT_INFO)
                    .requestTimeout(TIMEOUT)
                    .initializationTimeout(TIMEOUT)
                    // the SDK lists tools after initialize and checks every structuredContent against the outputSchema
                    .enableCallToolSchemaCaching(true)
                    .build();
            initialized = client.initialize();
        }

        @AfterAll
        void close() {
            if (client != null && client.isInitialized()) {
                client.closeGracefully();
            }
        }

        @Test
        @Order(Integer.MAX_VALUE)
        void closingDeletesTheSessionAndTheOldIdIsThenUnknown() throws Exception {
            String session = http.client().exchanges().get(0).sessionId().orElseThrow();
            assertThat(client.closeGracefully()).isTrue();

            assertThat(http.client().exchanges()).filteredOn(e -> e.method().equals("DELETE")).singleElement()
                    .satisfies(delete -> {
                        assertThat(delete.status()).isEqualTo(200);
                        assertThat(delete.sentSessionId()).contains(session);
                        assertThat(delete.version()).isEqualTo(version);
                    });

            try (HttpClient plain = HttpClient.newBuilder().version(version).connectTimeout(TIMEOUT).build()) {
                HttpRequest after = HttpRequest.newBuilder(URI.create(tern.url()))
                        .timeout(TIMEOUT)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .header("Mcp-Session-Id", session)
                        .header("MCP-Protocol-Version", ProtocolVersions.MCP_2025_11_25)
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))
                        .build();
                HttpResponse<String> response = plain.send(after, HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
                assertThat(response.version()).isEqualTo(version);
            }
        }

        @Test
        void initializeOpensA20251125SessionWithTheServersInfoAndCapabilities() {
            assertThat(initialized.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
            assertThat(initialized.serverInfo().name()).isEqualTo("tern-user-directory");
            assertThat(initialized.serverInfo().version()).isEqualTo("0.1.0");
            assertThat(initialized.capabilities().tools()).isNotNull();
            assertThat(initialized.capabilities().resources()).isNotNull();
            assertThat(initialized.capabilities().prompts()).isNotNull();
            assertThat(client.isInitialized()).isTrue();

            RecordingHttpClient.Exchange initialize = http.client().exchanges().get(0);
            assertThat(initialize.method()).isEqualTo("POST");
            assertThat(initialize.status()).isEqualTo(200);
            assertThat(initialize.sessionId()).as("Mcp-Session-Id of the initialize response").isPresent();
        }

        @Test
        void everyResponseCameOverTheConfiguredHttpVersion() {
            assertThat(client.ping()).isNotNull();
            List<RecordingHttpClient.Exchange> exchanges = http.client().exchanges();
            assertThat(exchanges).isNotEmpty();
            assertThat(exchanges).allSatisfy(e -> assertThat(e.version()).as("%s", e).isEqualTo(version));
            assertThat(exchanges).allSatisfy(e -> assertThat(e.status()).as("%s", e).isIn(200, 202));
            // one session for all of them
            String session = exchanges.get(0).sessionId().orElseThrow();
            assertThat(exchanges.subList(1, exchanges.size()))
                    .allSatisfy(e -> assertThat(e.sentSessionId()).as("%s", e).contains(session));
        }

        @Test
        void listsTheToolsWithTheirSchemas() {
            ListToolsResult page = client.listTools(McpSchema.FIRST_PAGE);
            assertThat(page.nextCursor()).isNull();
            assertThat(page.tools()).extracting(Tool::name)
                    .containsExactlyInAnyOrder("get_user", "search_users", "list_users");
            Tool getUser = page.tools().stream().filter(t -> t.name().equals("get_user")).findFirst().orElseThrow();
            assertThat(getUser.annotations().readOnlyHint()).isTrue();
            assertThat(getUser.inputSchema()).containsEntry("type", "object");
            assertThat(getUser.inputSchema().get("required")).isEqualTo(List.of("id"));
            assertThat(getUser.outputSchema()).containsEntry("type", "object");
        }

        @Test
        void callsGetUserAndGetsStructuredContentAndTheSameJsonAsText() {
            CallToolResult result = client.callTool(call("get_user", Map.of("id", "7")));

            assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
            Map<String, Object> expected = Json.mapper().convertValue(directory.find("7").orElseThrow(), MAP);
            assertThat(asMap(result.structuredContent())).isEqualTo(expected);
            assertThat(result.content()).singleElement().isInstanceOf(TextContent.class);
            String text = ((TextContent) result.content().get(0)).text();
            assertThat(Json.mapper().readValue(text, MAP)).isEqualTo(expected);

            CallToolResult unknown = client.callTool(call("get_user", Map.of("id", "4242")));
            assertThat(unknown.isError()).isTrue();
            assertThat(((TextContent) unknown.content().get(0)).text()).isEqualTo("No user with id 4242");
        }

        @Test
        void concurrentCallsAllGetTheirOwnAnswers() throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<CompletableFuture<CallToolResult>> calls = new ArrayList<>();
                for (int i = 1; i <= 16; i++) {
                    String id = String.valueOf(i * 37);
                    calls.add(CompletableFuture.supplyAsync(() -> client.callTool(call("get_user", Map.of("id", id))), pool));
                }
                for (int i = 1; i <= 16; i++) {
                    CallToolResult result = calls.get(i - 1).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(asMap(result.structuredContent())).containsEntry("id", String.valueOf(i * 37));
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(http.client().exchanges()).allSatisfy(e -> assertThat(e.version()).isEqualTo(version));
        }

        @Test
        void readsATemplatedResource() {
            ReadResourceResult user = client.readResource(ReadResourceRequest.builder("user://7").build());
            assertThat(user.contents()).singleElement().isInstanceOf(TextResourceContents.class);
            TextResourceContents contents = (TextResourceContents) user.contents().get(0);
            assertThat(contents.uri()).isEqualTo("user://7");
            assertThat(contents.mimeType()).isEqualTo("application/json");
            assertThat(Json.mapper().readValue(contents.text(), MAP))
                    .isEqualTo(Json.mapper().convertValue(directory.find("7").orElseThrow(), MAP));
        }

        @Test
        void getsAPromptWithAnEmbeddedResource() {
            GetPromptResult prompt = client.getPrompt(GetPromptRequest.builder("summarize_user")
                    .arguments(Map.of("id", "7")).build());
            assertThat(prompt.messages()).hasSize(2);
            assertThat(prompt.messages()).allSatisfy(m -> assertThat(m.role()).isEqualTo(Role.USER));
            assertThat(prompt.messages().get(0).content()).isInstanceOf(TextContent.class);
            assertThat(prompt.messages().get(1).content()).isInstanceOfSatisfying(EmbeddedResource.class, embedded -> {
                assertThat(embedded.resource().uri()).isEqualTo("user://7");
                assertThat(embedded.resource()).isInstanceOf(TextResourceContents.class);
            });
        }

        @Test
        void pings() {
            assertThat(client.ping()).isNotNull();
        }
    }

    /**
     * A JDK HttpClient that hands everything to a real one and notes, for each response, the request method, the
     * HTTP version, the status and the {@code Mcp-Session-Id} headers sent and received.
     */
    static final class RecordingHttpClient extends HttpClient {
        record Exchange(String method, Version version, int status, Optional<String> sentSessionId,
                Optional<String> sessionId) {
        }

        private final HttpClient delegate;
        private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();

        RecordingHttpClient(HttpClient delegate) {
            this.delegate = delegate;
        }

        List<Exchange> exchanges() {
            return List.copyOf(exchanges);
        }

        private <T> HttpResponse.BodyHandler<T> recording(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
            return info -> {
                exchanges.add(new Exchange(request.method(), info.version(), info.statusCode(),
                        request.headers().firstValue("mcp-session-id"),
                        info.headers().firstValue("mcp-session-id")));
                return handler.apply(info);
            };
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
                throws IOException, InterruptedException {
            return delegate.send(request, recording(request, handler));
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                HttpResponse.BodyHandler<T> handler) {
            return delegate.sendAsync(request, recording(request, handler));
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
            return delegate.sendAsync(request, recording(request, handler), pushPromiseHandler);
        }

        @Override
        public Optional<CookieHandler> cookieHandler() {
            return delegate.cookieHandler();
        }

        @Override
        public Optional<Duration> connectTimeout() {
            return delegate.connectTimeout();
        }

        @Override
        public Redirect followRedirects() {
            return delegate.followRedirects();
        }

        @Override
        public Optional<ProxySelector> proxy() {
            return delegate.proxy();
        }

        @Override
        public SSLContext sslContext() {
            return delegate.sslContext();
        }

        @Override
        public SSLParameters sslParameters() {
            return delegate.sslParameters();
        }

        @Override
        public Optional<Authenticator> authenticator() {
            return delegate.authenticator();
        }

        @Override
        public Version version() {
            return delegate.version();
        }

        @Override
        public Optional<Executor> executor() {
            return delegate.executor();
        }

        @Override
        public void shutdownNow() {
            delegate.shutdownNow();
        }

        @Override
        public void close() {
            delegate.close();
        }

        /** Builds a real HttpClient and wraps it; the last one built is {@link #client()}. */
        static final class Builder implements HttpClient.Builder {
            private final HttpClient.Builder delegate;
            private volatile RecordingHttpClient built;

            Builder(HttpClient.Builder delegate) {
                this.delegate = delegate;
            }

            RecordingHttpClient client() {
                assertThat(built).as("the SDK built its HttpClient").isNotNull();
                return built;
            }

            @Override
            public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
                delegate.cookieHandler(cookieHandler);
                return this;
            }

            @Override
            public HttpClient.Builder connectTimeout(Duration duration) {
                delegate.connectTimeout(duration);
                return this;
            }

            @Override
            public HttpClient.Builder sslContext(SSLContext sslContext) {
                delegate.sslContext(sslContext);
                return this;
            }

            @Override
            public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
                delegate.sslParameters(sslParameters);
                return this;
            }

            @Override
            public HttpClient.Builder executor(Executor executor) {
                delegate.executor(executor);
                return this;
            }

            @Override
            public HttpClient.Builder followRedirects(Redirect policy) {
                delegate.followRedirects(policy);
                return this;
            }

            @Override
            public HttpClient.Builder version(Version version) {
                delegate.version(version);
                return this;
            }

            @Override
            public HttpClient.Builder priority(int priority) {
                delegate.priority(priority);
                return this;
            }

            @Override
            public HttpClient.Builder proxy(ProxySelector proxySelector) {
                delegate.proxy(proxySelector);
                return this;
            }

            @Override
            public HttpClient.Builder authenticator(Authenticator authenticator) {
                delegate.authenticator(authenticator);
                return this;
            }

            @Override
            public HttpClient.Builder localAddress(InetAddress localAddr) {
                delegate.localAddress(localAddr);
                return this;
            }

            @Override
            public HttpClient build() {
                RecordingHttpClient client = new RecordingHttpClient(delegate.build());
                built = client;
                return client;
            }
        }
    }

    /** The server logged no failure (the JVM's notes about native access aside). */
    static void assertNoServerErrors(String stderr) {
        List<String> problems = stderr.lines()
                .filter(line -> !line.startsWith("SLF4J("))
                .filter(line -> !isNativeAccessNote(line))
                .filter(line -> line.contains("Exception") || line.startsWith("SEVERE") || line.startsWith("WARNING"))
                .toList();
        assertThat(problems).as("server stderr:%n%s", stderr).isEmpty();
    }

    private static boolean isNativeAccessNote(String line) {
        return line.startsWith("WARNING: A restricted method in java.lang.System has been called")
                || line.startsWith("WARNING: java.lang.System::loadLibrary has been called by io.netty")
                || line.startsWith("WARNING: Use --enable-native-access=ALL-UNNAMED")
                || line.startsWith("WARNING: Restricted methods will be blocked");
    }

    private static CallToolRequest call(String tool, Map<String, Object> arguments) {
        return CallToolRequest.builder(tool).arguments(arguments).build();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
