package dev.tern.transport.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The Accept and Content-Type rules of the endpoint: media ranges, wildcards, case, parameters and white space.
 */
class AcceptHeaderTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "application/json, text/event-stream | application/json | true",
        "application/json, text/event-stream | text/event-stream | true",
        "application/json | text/event-stream | false",
        "*/* | text/event-stream | true",
        "text/* | text/event-stream | true",
        "text/* | application/json | false",
        "application/* ;q=0.5 | application/json | true",
        "TEXT/EVENT-STREAM;q=0.9 | text/event-stream | true",
        "  application/json  ;  charset=utf-8 ,text/plain | application/json | true",
        "application/jsonx | application/json | false",
        "application/json-seq, text/event-streams | text/event-stream | false",
        "',,' | application/json | false",
        "'' | application/json | false",
        "*/json | application/json | false",
        "application/json;q=0, */*;q=0.1 | text/event-stream | true",
    })
    void mediaRanges(String accept, String type, boolean accepted) {
        HttpHeaders headers = new DefaultHttpHeaders().add("accept", accept);
        assertThat(McpEndpoint.accepts(headers, type)).as("%s accepts %s", accept, type).isEqualTo(accepted);
    }

    @ParameterizedTest
    @CsvSource({"application/json", "text/event-stream"})
    void noAcceptHeaderAcceptsNothing(String type) {
        assertThat(McpEndpoint.accepts(new DefaultHttpHeaders(), type)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "application/json | true",
        "Application/JSON | true",
        "application/json; charset=utf-8 | true",
        "'  application/json  ;charset=UTF-8' | true",
        "application/json;; | true",
        "application/jsonx | false",
        "application/json-seq | false",
        "text/json | false",
        "application/*  | false",
        "'' | false",
        "; application/json | false",
        "application/json, text/plain | false",
        "applİcation/json | false",
        "applicatıon/json | false",
    })
    void jsonContentTypes(String contentType, boolean json) {
        assertThat(RequestDispatcher.isJson(contentType)).as(contentType).isEqualTo(json);
    }

    @org.junit.jupiter.api.Test
    void noContentTypeIsNotJson() {
        assertThat(RequestDispatcher.isJson(null)).isFalse();
    }
}
