package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void nettysFlightRecorderEventsAreOffUnlessTheJvmWasToldOtherwise() {
        Properties none = new Properties();
        Main.defaultSystemProperties(none);
        assertThat(none.getProperty("io.netty.jfr.enabled")).isEqualTo("false");

        Properties given = new Properties();
        given.setProperty("io.netty.jfr.enabled", "true");
        Main.defaultSystemProperties(given);
        assertThat(given.getProperty("io.netty.jfr.enabled")).isEqualTo("true");
    }

    @Test
    void nettysLeakSamplingIsOffUnlessTheJvmWasToldOtherwise() {
        Properties none = new Properties();
        Main.defaultSystemProperties(none);
        assertThat(none.getProperty("io.netty.leakDetection.level")).isEqualTo("disabled");

        Properties given = new Properties();
        given.setProperty("io.netty.leakDetection.level", "paranoid");
        Main.defaultSystemProperties(given);
        assertThat(given.getProperty("io.netty.leakDetection.level")).isEqualTo("paranoid");
    }
}
