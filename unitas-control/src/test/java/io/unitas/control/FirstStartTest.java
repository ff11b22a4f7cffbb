package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/** The first start without a tokens file: one admin token, kept where only its owner can read it. */
class FirstStartTest {

    @TempDir
    Path dir;

    @Test
    void theFirstAdminToken_isWrittenToAFileOnlyItsOwnerReads_andTheTokensFileIsPrivateToo() throws Exception {
        Path data = dir.resolve("data");
        try (ControlServer server = ControlServer.builder().port(0).dataDir(data).start()) {
            Path secretFile = server.generatedTokenFile().orElseThrow();

            assertThat(secretFile).isEqualTo(data.resolve("admin-token"));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile)))
                    .isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("tokens"))))
                    .isEqualTo("rw-------");
            String secret = Files.readString(secretFile).strip();
            assertThat(RawClient.of(server.uri(), secret).get("/api/v1/whoami").json().path("role").asText())
                    .isEqualTo("admin");
            assertThat(Files.readString(data.resolve("tokens"))).doesNotContain(secret);
        }
        try (ControlServer again = ControlServer.builder().port(0).dataDir(data).start()) {
            assertThat(again.generatedTokenFile()).isEmpty();
        }
    }
}
