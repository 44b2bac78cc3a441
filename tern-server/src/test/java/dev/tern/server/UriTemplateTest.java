package dev.tern.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Matching URIs against RFC 6570 templates, the way resources/read finds a template. */
class UriTemplateTest {

    private static Map<String, String> match(String template, String uri) {
        Optional<Map<String, String>> m = UriTemplate.of(template).match(uri);
        assertThat(m).as("%s should match %s", uri, template).isPresent();
        return m.get();
    }

    private static void noMatch(String template, String uri) {
        assertThat(UriTemplate.of(template).match(uri)).as("%s should not match %s", uri, template).isEmpty();
    }

    @Test
    void simpleExpression() {
        assertThat(match("test://template/{id}/data", "test://template/42/data")).containsExactly(Map.entry("id", "42"));
        assertThat(match("users://{id}", "users://ada")).containsExactly(Map.entry("id", "ada"));
        assertThat(match("a://{x}/{y}", "a://1/2")).containsExactly(Map.entry("x", "1"), Map.entry("y", "2"));
    }

    @Test
    void simpleValuesDoNotCrossSegments() {
        noMatch("test://template/{id}/data", "test://template/4/2/data");
        noMatch("users://{id}", "users://a/b");
        noMatch("users://{id}", "users://a?b");
        noMatch("users://{id}", "users://a#b");
    }

    @Test
    void anEmptyValueMatches() {
        assertThat(match("users://{id}", "users://")).containsEntry("id", "");
    }

    @Test
    void valuesArePercentDecoded() {
        assertThat(match("users://{id}", "users://Ada%20Lovelace")).containsEntry("id", "Ada Lovelace");
        assertThat(match("users://{id}", "users://caf%C3%A9")).containsEntry("id", "caf\u00e9");
        assertThat(match("users://{id}", "users://a%2Fb")).containsEntry("id", "a/b");
    }

    @Test
    void plusIsNotASpace() {
        // RFC 3986 URIs are not form-encoded
        assertThat(match("users://{id}", "users://a+b")).containsEntry("id", "a+b");
        assertThat(match("users://{id}", "users://a%2Bb")).containsEntry("id", "a+b");
    }

    @Test
    void malformedPercentEncodingIsKeptAsIs() {
        assertThat(match("users://{id}", "users://100%")).containsEntry("id", "100%");
        assertThat(match("users://{id}", "users://%zz")).containsEntry("id", "%zz");
    }

    @Test
    void reservedExpressionSpansSegments() {
        assertThat(match("file:///{+path}", "file:///src/main/App.java")).containsEntry("path", "src/main/App.java");
        assertThat(match("file:///{+path}", "file:///")).containsEntry("path", "");
        noMatch("file:///{+path}", "file:///a?b");
    }

    @Test
    void fragmentExpression() {
        assertThat(match("doc://page{#section}", "doc://page#intro")).containsEntry("section", "intro");
        assertThat(match("doc://page{#section}", "doc://page")).doesNotContainKey("section");
    }

    @Test
    void pathSegmentExpression() {
        assertThat(match("api://v1{/resource}", "api://v1/users")).containsEntry("resource", "users");
        assertThat(match("api://v1{/resource}", "api://v1")).doesNotContainKey("resource");
        noMatch("api://v1{/resource}", "api://v1/users/7");
    }

    @Test
    void labelExpression() {
        assertThat(match("file://report{.ext}", "file://report.pdf")).containsEntry("ext", "pdf");
        assertThat(match("file://report{.ext}", "file://report")).doesNotContainKey("ext");
    }

    @Test
    void queryExpression() {
        String t = "search://items{?q,lang}";
        assertThat(match(t, "search://items?q=cat&lang=en")).containsEntry("q", "cat").containsEntry("lang", "en");
        assertThat(match(t, "search://items?lang=en&q=cat")).containsEntry("q", "cat").containsEntry("lang", "en");
        assertThat(match(t, "search://items?q=cat")).containsEntry("q", "cat").doesNotContainKey("lang");
        assertThat(match(t, "search://items")).isEmpty();
        assertThat(match(t, "search://items?q=a%26b%3Dc")).containsEntry("q", "a&b=c");
        assertThat(match(t, "search://items?q")).containsEntry("q", "");
        assertThat(match(t, "search://items?other=1&q=x")).containsOnlyKeys("q");
    }

    @Test
    void queryContinuationExpression() {
        assertThat(match("search://items?fixed=1{&page}", "search://items?fixed=1&page=3")).containsEntry("page", "3");
    }

    @Test
    void pathAndQueryTogether() {
        assertThat(match("repo://{owner}/{name}{?ref}", "repo://acme/tern?ref=main"))
                .containsEntry("owner", "acme").containsEntry("name", "tern").containsEntry("ref", "main");
    }

    @Test
    void variablesAreListedInOrder() {
        assertThat(UriTemplate.of("repo://{owner}/{+path}{?ref,depth}").variables()).containsExactly("owner", "path", "ref", "depth");
        assertThat(UriTemplate.of("static://thing").variables()).isEmpty();
    }

    @Test
    void literalPartsMustMatchExactly() {
        noMatch("test://template/{id}/data", "test://template/42/datum");
        noMatch("test://template/{id}/data", "other://template/42/data");
        noMatch("test://template/{id}/data", "test://template/42/data/");
        noMatch("test://template/{id}/data", "xtest://template/42/data");
        noMatch("a.b://{x}", "aXb://1");
        noMatch("a://(x)/{y}", "a://x/1");
        assertThat(match("a://(x)/{y}", "a://(x)/1")).containsEntry("y", "1");
    }

    @Test
    void isTemplate() {
        assertThat(UriTemplate.isTemplate("file:///{path}")).isTrue();
        assertThat(UriTemplate.isTemplate("file:///{+path}")).isTrue();
        assertThat(UriTemplate.isTemplate("file:///readme.md")).isFalse();
        assertThat(UriTemplate.isTemplate("file:///{}")).isFalse();
    }

    @Test
    void severalVariablesInOnePathExpressionAreRefused() {
        assertThatThrownBy(() -> UriTemplate.of("a://{x,y}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UriTemplate.of("a://{+x,y}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pathExpressionsAfterTheQueryAreRefused() {
        assertThatThrownBy(() -> UriTemplate.of("a://{?q}/{x}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void templateAndToString() {
        assertThat(UriTemplate.of("a://{x}").template()).isEqualTo("a://{x}");
        assertThat(UriTemplate.of("a://{x}")).hasToString("a://{x}");
    }

    @Test
    void overlongUrisDoNotMatch() {
        noMatch("file:///{+path}", "file:///" + "a".repeat(10_000));
        assertThat(match("file:///{+path}", "file:///" + "a".repeat(8000))).containsKey("path");
    }

    @Test
    void longNonMatchingInputsFinish() {
        // a backtracking matcher could take exponential time on these; the test only has to finish
        String many = "a".repeat(8000);
        noMatch("x://{a}/{b}/{c}/{d}/end", "x://" + many + "/" + many + "!");
        noMatch("x://{a}/{b}/{c}/{d}/end", "x://" + "/".repeat(8000));
        noMatch("file:///{+path}/end", "file:///" + "a/".repeat(4000) + "x");
        noMatch("search://items{?q,lang}", "search://items?" + "q=1&".repeat(2000) + "#");
    }
}
