package dev.tern.protocol;

import static dev.tern.protocol.Wire.assertRejected;
import static dev.tern.protocol.Wire.single;
import static dev.tern.protocol.Wire.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The JSON-RPC 2.0 envelope rules as MCP narrows them: what is a request, a notification, a response. */
class JsonRpcEnvelopeTest {
    private final JsonRpcCodec codec = JsonRpcCodec.withDefaults();

    private Decoded decode(String json) {
        return codec.decode(utf8(json));
    }

    // ------------------------------------------------------------------ ids

    @Test
    void stringAndIntegerIdsAreAccepted() {
        JsonRpcRequest s = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"ping\"}"));
        assertThat(s.id()).isEqualTo(RequestId.of("abc"));
        JsonRpcRequest n = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}"));
        assertThat(n.id()).isEqualTo(RequestId.of(42));
        JsonRpcRequest negative = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":-7,\"method\":\"ping\"}"));
        assertThat(negative.id()).isEqualTo(RequestId.of(-7));
        JsonRpcRequest zero = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}"));
        assertThat(zero.id()).isEqualTo(RequestId.of(0));
        JsonRpcRequest empty = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"ping\"}"));
        assertThat(empty.id()).isEqualTo(RequestId.of(""));
    }

    @Test
    void largestLongIdIsAccepted() {
        JsonRpcRequest r = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"ping\"}"));
        assertThat(r.id()).isEqualTo(RequestId.of(Long.MAX_VALUE));
    }

    @Test
    void stringIdAndIntegerIdAreDifferentIds() {
        assertThat(RequestId.of("1")).isNotEqualTo(RequestId.of(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"null", "1.5", "1.0", "1e3", "{}", "{\"a\":1}", "[]", "[1]", "true", "false",
            "92233720368547758070"})
    void requestIdsThatAreNeitherStringNorIntegerAreInvalidRequests(String id) {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}"),
                ErrorCodes.INVALID_REQUEST, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"null", "2.5", "{}", "[]", "true"})
    void responseIdsThatAreNeitherStringNorIntegerAreInvalid(String id) {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}"), ErrorCodes.INVALID_REQUEST, null);
    }

    // ------------------------------------------------------------------ jsonrpc member

    @ParameterizedTest
    @ValueSource(strings = {"", ",\"jsonrpc\":\"1.0\"", ",\"jsonrpc\":2.0", ",\"jsonrpc\":\"2\"", ",\"jsonrpc\":\"2.0 \"",
            ",\"jsonrpc\":null", ",\"jsonrpc\":\"\"", ",\"jsonrpc\":[\"2.0\"]", ",\"jsonrpc\":\"2.00\""})
    void jsonrpcMustBeTheStringTwoPointZero(String member) {
        JsonRpcFailure f = assertRejected(decode("{\"id\":3,\"method\":\"ping\"" + member + "}"), ErrorCodes.INVALID_REQUEST,
                RequestId.of(3));
        assertThat(f.error().message()).contains("jsonrpc");
    }

    @Test
    void badJsonrpcOnANotificationIsStillAnswered() {
        // without a usable id the answer goes to id null (JSON-RPC 2.0 section 5)
        assertRejected(decode("{\"jsonrpc\":\"1.0\",\"method\":\"notifications/initialized\"}"), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void badJsonrpcWithABadIdAnswersIdNull() {
        assertRejected(decode("{\"jsonrpc\":\"1.0\",\"id\":{},\"method\":\"ping\"}"), ErrorCodes.INVALID_REQUEST, null);
    }

    // ------------------------------------------------------------------ method and params

    @ParameterizedTest
    @ValueSource(strings = {"1", "null", "true", "{}", "[\"ping\"]"})
    void methodMustBeAString(String method) {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":\"m\",\"method\":" + method + "}"), ErrorCodes.INVALID_REQUEST,
                RequestId.of("m"));
    }

    @Test
    void aRequestWithoutMethodResultOrErrorIsInvalid() {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":5}"), ErrorCodes.INVALID_REQUEST, RequestId.of(5));
        assertRejected(decode("{\"jsonrpc\":\"2.0\"}"), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void paramsObjectIsKept() {
        JsonRpcRequest r = (JsonRpcRequest) single(decode(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"a\":[1,2]}}}"));
        assertThat(r.method()).isEqualTo("tools/call");
        assertThat(r.params().get("name").stringValue()).isEqualTo("x");
        assertThat(r.params().at("/arguments/a/1").intValue()).isEqualTo(2);
    }

    @Test
    void absentParamsAreNull() {
        JsonRpcRequest r = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));
        assertThat(r.params()).isNull();
        JsonRpcNotification n = (JsonRpcNotification) single(decode("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
        assertThat(n.params()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "[1,2]", "\"x\"", "1", "true"})
    void nonObjectParamsOfARequestAreInvalidParams(String params) {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":" + params + "}"),
                ErrorCodes.INVALID_PARAMS, RequestId.of(9));
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "[1,2]", "\"x\"", "1"})
    void nonObjectParamsOfANotificationAreDroppedWithoutAnswer(String params) {
        Decoded d = decode("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":" + params + "}");
        assertThat(d).isInstanceOf(Decoded.Ignored.class);
    }

    @Test
    void aMessageWithMethodAndIdIsARequestWithoutIdANotification() {
        assertThat(single(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"))).isInstanceOf(JsonRpcRequest.class);
        assertThat(single(decode("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}"))).isInstanceOf(JsonRpcNotification.class);
    }

    @Test
    void aRequestMayNotCarryResultOrError() {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"result\":{}}"), ErrorCodes.INVALID_REQUEST,
                RequestId.of(1));
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"error\":{\"code\":1,\"message\":\"m\"}}"),
                ErrorCodes.INVALID_REQUEST, RequestId.of(1));
    }

    @Test
    void unknownTopLevelMembersAreTolerated() {
        JsonRpcRequest r = (JsonRpcRequest) single(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"extra\":true}"));
        assertThat(r.method()).isEqualTo("a");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "\"text\"", "null", "true"})
    void aMessageMustBeAnObject(String json) {
        assertRejected(decode(json), ErrorCodes.INVALID_REQUEST, null);
    }

    // ------------------------------------------------------------------ responses

    @Test
    void resultResponse() {
        JsonRpcResult r = (JsonRpcResult) single(decode("{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{\"roots\":[]}}"));
        assertThat(r.id()).isEqualTo(RequestId.of("r1"));
        assertThat(r.result().get("roots").isArray()).isTrue();
    }

    @Test
    void errorResponse() {
        JsonRpcFailure f = (JsonRpcFailure) single(decode(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"nope\",\"data\":{\"x\":[1]}}}"));
        assertThat(f.id()).isEqualTo(RequestId.of(2));
        assertThat(f.error().code()).isEqualTo(-32601);
        assertThat(f.error().message()).isEqualTo("nope");
        assertThat(f.error().data().at("/x/0").intValue()).isEqualTo(1);
    }

    @Test
    void errorResponseWithoutIdIsAccepted() {
        // MCP makes the id of an error response optional (the request's id could not be read)
        JsonRpcFailure f = (JsonRpcFailure) single(decode("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}"));
        assertThat(f.id()).isNull();
    }

    @Test
    void aResponseCarriesExactlyOneOfResultAndError() {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}"),
                ErrorCodes.INVALID_REQUEST, RequestId.of(1));
    }

    @Test
    void aResultNeedsAnId() {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"result\":{}}"), ErrorCodes.INVALID_REQUEST, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"boom\"", "null", "[]", "{}", "{\"code\":1}", "{\"message\":\"m\"}", "{\"code\":1.5,\"message\":\"m\"}",
            "{\"code\":\"1\",\"message\":\"m\"}", "{\"code\":1,\"message\":2}", "{\"code\":1,\"message\":null}",
            "{\"code\":99999999999,\"message\":\"m\"}"})
    void errorObjectsNeedAnIntegerCodeAndAStringMessage(String error) {
        assertRejected(decode("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":" + error + "}"), ErrorCodes.INVALID_REQUEST,
                RequestId.of(4));
    }

    // ------------------------------------------------------------------ batches

    @Test
    void anArrayIsABatchOfIndividuallyCheckedItems() {
        Decoded d = decode("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                + "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[1]},"
                + "7]");
        assertThat(d).isInstanceOf(Decoded.Batch.class);
        var items = ((Decoded.Batch) d).items();
        assertThat(items).hasSize(5);
        assertThat(single(items.get(0))).isInstanceOf(JsonRpcRequest.class);
        assertThat(single(items.get(1))).isInstanceOf(JsonRpcNotification.class);
        assertRejected(items.get(2), ErrorCodes.INVALID_REQUEST, RequestId.of(2));
        assertThat(items.get(3)).isInstanceOf(Decoded.Ignored.class);
        assertRejected(items.get(4), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void anEmptyBatchIsInvalid() {
        assertRejected(decode("[]"), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void aNestedBatchIsAnInvalidItem() {
        Decoded d = decode("[[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]]");
        assertThat(d).isInstanceOf(Decoded.Batch.class);
        assertRejected(((Decoded.Batch) d).items().get(0), ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void envelopeChecksAnAlreadyParsedTree() {
        var tree = Json.mapper().readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertThat(single(codec.envelope(tree))).isEqualTo(new JsonRpcRequest(RequestId.of(1), "ping", null));
    }
}
