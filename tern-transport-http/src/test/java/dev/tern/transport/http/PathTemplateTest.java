package dev.tern.transport.http;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PathTemplateTest {
    private final PathTemplate users = PathTemplate.parse("/users/{id}");

    @Test
    void aVariableIsOneWholeNonEmptySegment() {
        assertThat(users.match("/users/42")).isEqualTo(Map.of("id", "42"));
        assertThat(users.match("/users/")).isNull();
        assertThat(users.match("/users")).isNull();
        assertThat(users.match("/users/42/")).isNull();
        assertThat(users.match("/users/42/x")).isNull();
        assertThat(users.match("/user/42")).isNull();
        assertThat(users.match("/usersx/42")).isNull();
        assertThat(users.match("users/42")).isNull();
    }

    @Test
    void variablesArePercentDecodedAndPlusIsItself() {
        assertThat(users.match("/users/a%2Fb")).isEqualTo(Map.of("id", "a/b"));
        assertThat(users.match("/users/a+b")).isEqualTo(Map.of("id", "a+b"));
        assertThat(users.match("/users/%C3%A9")).isEqualTo(Map.of("id", "é"));
        assertThat(users.match("/users/%zz")).isNull();
    }

    @Test
    void severalVariablesAndLiterals() {
        PathTemplate t = PathTemplate.parse("/orgs/{org}/members/{user}");
        assertThat(t.match("/orgs/tern/members/ada")).isEqualTo(Map.of("org", "tern", "user", "ada"));
        assertThat(t.variableNames()).containsExactly("org", "user");
        assertThat(PathTemplate.parse("/openapi.json").match("/openapi.json")).isEmpty();
        assertThat(PathTemplate.parse("/openapi.json").hasVariables()).isFalse();
    }

    @Test
    void malformedTemplatesAreRefused() {
        for (String bad : new String[] {"users", "/", "/users/", "//x", "/users/{id}/{id}", "/users/x{id}", "/a b",
            "/users/{1d}"}) {
            assertThatThrownBy(() -> PathTemplate.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
