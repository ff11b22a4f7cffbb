package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UsersFileTest {

    private static final List<String> REGIONS = List.of("cn", "eu", "us");

    @TempDir
    Path dir;

    private Path write(String text) throws IOException {
        Path file = dir.resolve("users.csv");
        Files.writeString(file, text);
        return file;
    }

    private static List<String> rows(Path file) {
        List<String> out = new ArrayList<>();
        try (UsersFile users = UsersFile.open(file, REGIONS)) {
            while (users.next()) {
                out.add(users.line() + ":" + users.userId() + "/" + users.homeId() + "/" + users.home() + "/"
                        + users.load());
            }
        }
        return out;
    }

    @Test
    void readsRowsWithoutLoad_asLoadOne_andUnknownHomesAsMinusOne() throws IOException {
        assertThat(rows(write("user_id,region\nu1,cn\nu2,ap\nu3,us")))
                .containsExactly("2:u1/cn/0/1.0", "3:u2/ap/-1/1.0", "4:u3/us/2/1.0");
    }

    @Test
    void readsTheLoadColumn_crlfLineEnds_blankLines_andAByteOrderMark() throws IOException {
        assertThat(rows(write("\uFEFFuser_id,region,load\r\nu1,eu,3\r\n\r\nü,cn,0.25\r\n")))
                .containsExactly("2:u1/eu/1/3.0", "4:ü/cn/0/0.25");
    }

    @Test
    void exposesTheRawBytesOfIdAndHome() throws IOException {
        try (UsersFile users = UsersFile.open(write("user_id,region\nabc,eu\n"), REGIONS)) {
            assertThat(users.next()).isTrue();
            byte[] b = users.buffer();
            assertThat(new String(b, users.userIdStart(), users.userIdEnd() - users.userIdStart(),
                                  StandardCharsets.UTF_8)).isEqualTo("abc");
            assertThat(new String(b, users.homeStart(), users.homeEnd() - users.homeStart(),
                                  StandardCharsets.UTF_8)).isEqualTo("eu");
            assertThat(users.next()).isFalse();
            assertThat(users.bytesRead()).isEqualTo(users.size());
        }
    }

    @Test
    void streamsRowsAcrossBufferRefills() throws IOException {
        StringBuilder sb = new StringBuilder("user_id,region,load\n");
        int n = 300_000;
        for (int i = 0; i < n; i++) {
            sb.append("user-").append(i).append(',').append(REGIONS.get(i % 3)).append(',').append(i % 7).append('\n');
        }
        long count = 0;
        double load = 0;
        try (UsersFile users = UsersFile.open(write(sb.toString()), REGIONS)) {
            while (users.next()) {
                assertThat(users.home()).isEqualTo((int) (count % 3));
                count++;
                load += users.load();
            }
        }
        assertThat(count).isEqualTo(n);
        assertThat(load).isEqualTo(java.util.stream.IntStream.range(0, n).map(i -> i % 7).sum());
    }

    @Test
    void acceptsALineLongerThanTheBuffer() throws IOException {
        String id = "x".repeat(3 << 20);
        assertThat(rows(write("user_id,region\n" + id + ",cn\n"))).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            too many fields   | user_id,region\\nu1,cn\\nu2,cn,3\\n        | users.csv:3: 3 fields (expected: 2: user_id,region)
            too few fields    | user_id,region,load\\nu1,cn\\n             | users.csv:2: 2 fields (expected: 3: user_id,region,load)
            one field         | user_id,region\\nu1\\n                     | users.csv:2: 1 field (expected: 2: user_id,region)
            five fields       | user_id,region\\na,b,c,d,e\\n              | users.csv:2: 5 fields (expected: 2: user_id,region)
            bad number        | user_id,region,load\\nu1,cn,abc\\n         | users.csv:2: load: 'abc' (expected: a number >= 0)
            negative load     | user_id,region,load\\nu1,cn,-2\\n          | users.csv:2: load: '-2' (expected: a number >= 0)
            empty load        | user_id,region,load\\nu1,cn,\\n            | users.csv:2: load: '' (expected: a number >= 0)
            not a finite load | user_id,region,load\\nu1,cn,NaN\\n         | users.csv:2: load: 'NaN' (expected: a number >= 0)
            empty user id     | user_id,region\\n,cn\\n                    | users.csv:2: user_id: empty (expected: a user id)
            wrong header      | id,home\\nu1,cn\\n                         | users.csv:1: header 'id,home' (expected: user_id,region or user_id,region,load)
            """)
    void reportsEachBadRowWithFileAndLine(String what, String text, String expected) throws IOException {
        Path file = write(text.replace("\\n", "\n"));
        assertThatThrownBy(() -> rows(file)).isInstanceOf(ConfigException.class)
                                            .hasMessage(expected.replace("users.csv", file.toString()));
    }

    @Test
    void emptyFile_andMissingFile_areOneLine() throws IOException {
        Path empty = write("");
        assertThatThrownBy(() -> rows(empty)).hasMessage(
                empty + ": empty (expected: a header user_id,region or user_id,region,load)");
        Path missing = dir.resolve("missing.csv");
        assertThatThrownBy(() -> rows(missing)).hasMessage(missing + ": no such file");
    }
}
