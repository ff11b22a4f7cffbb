package io.unitas.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

class KeyTransformTest {

    @ParameterizedTest(name = "none of ''{0}'' is {1}")
    @CsvSource(delimiter = '|', value = {
            "0                   | 0",
            "1999                | 1999",
            "007                 | 7",
            "9223372036854775807 | 9223372036854775807",
            "9223372036854775808 | -1",
            "-5                  | -1",
            "+5                  | -1",
            "12a                 | -1",
            "' 12'               | -1",
            "1.5                 | -1",
            "''                  | -1",
            "١٢                  | -1",
    })
    void none_takesDecimalDigitsOnly(String key, long expected) {
        assertThat(KeyTransform.none().apply(key)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "mod {1} of ''{0}'' is {2}")
    @CsvSource(delimiter = '|', value = {
            "123456                          | 10000 | 3456",
            "9999                            | 10000 | 9999",
            "10000                           | 10000 | 0",
            "123456789012345678901234567890  | 10000 | 7890",
            "123456789012345678901234567890  | 97    | 52",
            "user-1                          | 10000 | -1",
            "''                              | 10000 | -1",
    })
    void mod_reducesDecimalKeysOfAnyLength(String key, long n, long expected) {
        assertThat(KeyTransform.mod(n).apply(key)).isEqualTo(expected);
    }

    @Property
    void mod_agreesWithArithmeticOnLongs(@ForAll @LongRange(min = 0) long key,
                                         @ForAll @LongRange(min = 1, max = KeyTransform.MAX_MODULUS) long n) {
        assertThat(KeyTransform.mod(n).apply(Long.toString(key))).isEqualTo(key % n);
    }

    @ParameterizedTest(name = "fnv1a64(''{0}'') = {1}")
    @CsvSource(delimiter = '|', value = {
            "''     | cbf29ce484222325",
            "a      | af63dc4c8601ec8c",
            "foobar | 85944171f73967e8",
    })
    void fnv1a64_matchesThePublishedTestVectors(String text, String hex) {
        assertThat(KeyTransform.fnv1a64(text)).isEqualTo(Long.parseUnsignedLong(hex, 16));
    }

    @Property
    void fnv1a64_hashesTheUtf8BytesOfAnyString(@ForAll String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        assertThat(KeyTransform.fnv1a64(text)).isEqualTo(h);
    }

    @Property
    void hashMod_isTheUnsignedRemainderOfTheHash(@ForAll String key,
                                                 @ForAll @LongRange(min = 1, max = KeyTransform.MAX_MODULUS) long n) {
        long k = KeyTransform.hashMod(n).apply(key);
        assertThat(k).isBetween(0L, n - 1).isEqualTo(Long.remainderUnsigned(KeyTransform.fnv1a64(key), n));
    }

    @ParameterizedTest(name = "''{0}'' parses as {1}")
    @CsvSource(delimiter = '|', value = {
            "none           | none",
            "mod 10000      | mod 10000",
            "' Mod   100 '  | mod 100",
            "hash-mod 10000 | hash-mod 10000",
    })
    void parse_readsTheFileNotation(String text, String expected) {
        KeyTransform t = KeyTransform.parse(text);
        assertThat(t).hasToString(expected).isEqualTo(KeyTransform.parse(expected));
    }

    @ParameterizedTest(name = "''{0}'' is rejected: {1}")
    @CsvSource(delimiter = '|', value = {
            "modulo 10         | 'modulo 10' (expected: none, mod N or hash-mod N)",
            "mod               | 'mod' (expected: none, mod N or hash-mod N)",
            "mod 0             | 'mod 0' (expected: N between 1 and 1000000000000000)",
            "hash-mod ten      | 'hash-mod ten' (expected: N between 1 and 1000000000000000)",
            "mod 1000000000000001 | 'mod 1000000000000001' (expected: N between 1 and 1000000000000000)",
    })
    void parse_rejectsAnythingElseSayingWhatWasExpected(String text, String message) {
        assertThatThrownBy(() -> KeyTransform.parse(text)).hasMessage(message);
    }

    @ParameterizedTest(name = "space of {0} is {1}")
    @CsvSource(delimiter = '|', value = {
            "none           | 9223372036854775807 | false",
            "mod 10000      | 10000               | true",
            "hash-mod 64    | 64                  | true",
    })
    void space_isTheModulusOrUnbounded(String text, long space, boolean modular) {
        KeyTransform t = KeyTransform.parse(text);
        assertThat(t.space()).isEqualTo(space);
        assertThat(t.isModular()).isEqualTo(modular);
    }

    @ParameterizedTest(name = "fnv1a64 of {0} hashes its UTF-8 bytes")
    @CsvSource(delimiter = '|', value = {
            "the last one-byte character          | \u007f",
            "the first two-byte character         | \u0080",
            "the last two-byte character          | \u07ff",
            "the first three-byte character       | \u0800",
            "the last character below surrogates  | \ud7ff",
            "the first character above surrogates | \ue000",
            "the last three-byte character        | \uffff",
            "the first four-byte character        | \ud800\udc00",
            "the last four-byte character         | \udbff\udfff",
            "a high surrogate at the end          | a\ud800",
            "a high surrogate before a letter     | \ud800a",
            "two high surrogates                  | \ud800\ud800",
            "a low surrogate alone                | \udc00",
            "a pair written the wrong way round   | \udc00\ud800",
            "every width in a row                 | a\u00e9\u4e2d\ud83d\ude00z",
    })
    void fnv1a64_encodesEveryUtf8BoundaryAsStringGetBytesDoes(String name, String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        assertThat(KeyTransform.fnv1a64(text)).isEqualTo(h);
        assertThat(KeyTransform.hashMod(KeyTransform.MAX_MODULUS).apply(text))
                .isEqualTo(Long.remainderUnsigned(h, KeyTransform.MAX_MODULUS));
    }

    @ParameterizedTest(name = "''{0}'' is the smallest or largest modulus")
    @CsvSource({"mod 1", "hash-mod 1", "mod 1000000000000000", "hash-mod 1000000000000000"})
    void parse_acceptsTheBoundsOfTheModulus(String text) {
        assertThat(KeyTransform.parse(text)).hasToString(text);
    }

    @ParameterizedTest(name = "modulus {0} is out of bounds")
    @CsvSource({"0", "-1", "1000000000000001"})
    void mod_andHashMod_refuseAModulusOutOfBounds(long n) {
        String message = "modulus: " + n + " (expected: 1 <= N <= 1000000000000000)";
        assertThatThrownBy(() -> KeyTransform.mod(n)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThatThrownBy(() -> KeyTransform.hashMod(n)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThat(KeyTransform.mod(1).apply("12345")).isZero();
        assertThat(KeyTransform.hashMod(KeyTransform.MAX_MODULUS).space()).isEqualTo(KeyTransform.MAX_MODULUS);
    }

    @ParameterizedTest(name = "{0} equals {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "none           | none           | true",
            "mod 10000      | mod 10000      | true",
            "hash-mod 10000 | hash-mod 10000 | true",
            "mod 10000      | mod 1000       | false",
            "hash-mod 10000 | hash-mod 1000  | false",
            "mod 10000      | hash-mod 10000 | false",
            "none           | mod 10000      | false",
    })
    void transformsAreEqualWhenOfTheSameKindAndModulus(String a, String b, boolean equal) {
        KeyTransform x = KeyTransform.parse(a);
        KeyTransform y = KeyTransform.parse(b);

        assertThat(x.equals(y)).isEqualTo(equal);
        assertThat(y.equals(x)).isEqualTo(equal);
        if (equal) {
            assertThat(x.hashCode()).isEqualTo(y.hashCode());
        }
        assertThat(x.equals(null)).isFalse();
        assertThat(x.equals(a)).isFalse();
    }

    @Test
    void none_isEqualToAnyOtherNone() {
        KeyTransform another = new StandardTransforms.None();

        assertThat(another.equals(KeyTransform.none())).isTrue();
        assertThat(KeyTransform.none().equals(another)).isTrue();
        assertThat(another.hashCode()).isEqualTo(KeyTransform.none().hashCode());
    }
}
