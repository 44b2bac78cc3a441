package dev.tern.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MainTest {

    /** Netty's flight-recorder events and its leak sampling are off unless the JVM was told otherwise. */
    @ParameterizedTest
    @CsvSource({
        // property, its default, a property the JVM was given, its value, the property's value then (empty: unset)
        "io.netty.jfr.enabled, false, io.netty.jfr.enabled, true, true",
        "io.netty.leakDetection.level, disabled, io.netty.leakDetection.level, paranoid, paranoid",
        "io.netty.leakDetection.level, disabled, io.netty.leakDetectionLevel, simple, ",
        "io.netty.leakDetection.level, disabled, io.netty.noResourceLeakDetection, false, ",
    })
    void nettyDefaultsGiveWayToWhatTheJvmWasGiven(String property, String byDefault, String given, String value,
            String then) {
        Properties none = new Properties();
        Main.defaultSystemProperties(none);
        assertThat(none.getProperty(property)).isEqualTo(byDefault);

        Properties told = new Properties();
        told.setProperty(given, value);
        Main.defaultSystemProperties(told);
        assertThat(told.getProperty(property)).isEqualTo(then);
    }
}
