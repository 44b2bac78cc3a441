package dev.tern.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.tern.server.observe.McpObserver;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/** An {@link Observability} with everything on, whose spans land in memory. */
final class Fixture implements AutoCloseable {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final Observability observability;
    final McpObserver observer;

    Fixture() {
        this(null);
    }

    Fixture(AccessLog log) {
        observability = Observability.builder()
                .tracing(true)
                .metrics(true)
                .accessLog(log)
                .spanProcessor(SimpleSpanProcessor.create(spans))
                .build();
        observer = observability.observer();
    }

    String metricsText() {
        return new String(observability.metrics(null).body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        observability.close();
    }

    /** The value of the one sample whose labels contain all of {@code parts} (and none of those marked {@code !}). */
    static double sample(String text, String name, String... parts) {
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(text);
        Double found = null;
        while (m.find()) {
            boolean all = true;
            for (String p : parts) {
                all &= p.startsWith("!") ? !m.group(1).contains(p.substring(1)) : m.group(1).contains(p);
            }
            if (all) {
                assertThat(found).as("more than one sample of %s with %s", name, String.join(", ", parts)).isNull();
                found = Double.parseDouble(m.group(2));
            }
        }
        assertThat(found).as("a sample of %s with %s in%n%s", name, String.join(", ", parts), text).isNotNull();
        return found;
    }

}
