package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** What the pieces log through SLF4J comes out as the command's log format says. */
class LoggingTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @AfterEach
    void restore() {
        Logging.toStderr(Logging.Format.TEXT);
    }

    private List<String> lines(Handler handler) {
        handler.flush();
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void json_isOneObjectPerLine_withTheMessageItsLoggerAndTheError() throws Exception {
        Handler handler = Logging.to(out, Logging.Format.JSON, Level.INFO);
        org.slf4j.Logger log = LoggerFactory.getLogger("io.unitas.control.client.state.ControlPlaneFeed");

        log.warn("state {} refused, still serving revision {}: \"{}\"", 7, 6, "rules.yaml:3: bad\nsecond line");
        log.error("cannot keep the last good state", new IllegalStateException("disk full"));
        log.debug("not shown at INFO");

        List<String> lines = lines(handler);
        assertThat(lines).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(lines.get(0));
        assertThat(first.path("level").asText()).isEqualTo("WARNING");
        assertThat(first.path("logger").asText()).isEqualTo("io.unitas.control.client.state.ControlPlaneFeed");
        assertThat(first.path("message").asText())
                .isEqualTo("state 7 refused, still serving revision 6: \"rules.yaml:3: bad\nsecond line\"");
        assertThat(first.path("thread").asText()).isEqualTo(Thread.currentThread().getName());
        assertThat(first.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(first.has("error")).isFalse();
        JsonNode second = json.readTree(lines.get(1));
        assertThat(second.path("level").asText()).isEqualTo("SEVERE");
        assertThat(second.path("error").asText()).startsWith("java.lang.IllegalStateException: disk full");
    }

    @Test
    void text_isOneLineNamingLevelAndLogger() {
        Handler handler = Logging.to(out, Logging.Format.TEXT, Level.INFO);

        LoggerFactory.getLogger("io.unitas.control.TokensFile").info("tokens reloaded");

        assertThat(lines(handler)).singleElement().asString()
                .matches("\\S+Z INFO io\\.unitas\\.control\\.TokensFile: tokens reloaded");
    }

    @Test
    void theFormatIsTextOrJson_anythingElseIsRefusedNamingTheVariable() {
        assertThat(Logging.Format.of(null)).isEqualTo(Logging.Format.TEXT);
        assertThat(Logging.Format.of("json")).isEqualTo(Logging.Format.JSON);
        assertThatThrownBy(() -> Logging.Format.of("yaml"))
                .hasMessage("UNITAS_LOG_FORMAT: 'yaml' (expected: text or json)");
    }

    @Test
    void theHelpNamesTheVariable() {
        assertThat(Cli.run("--help").out()).contains("UNITAS_LOG_FORMAT");
    }
}
