package io.unitas.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;


class RedactTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "postgresql://app:hunter2@db:5432/shop|postgresql://***@db:5432/shop",
            "redis://:hunter2@cache|redis://***@cache",
            "redis://hunter2@cache|redis://***@cache",
            "target: 'mysql://u:p%40ss@h/db' (expected: x)|target: 'mysql://***@h/db' (expected: x)",
            "postgresql://db/shop?sslmode=require&password=hunter2|postgresql://db/shop?sslmode=require&password=***",
            "http://127.0.0.1:7070/api?access_token=abc&x=1|http://127.0.0.1:7070/api?access_token=***&x=1",
            "postgresql://db:5432/shop|postgresql://db:5432/shop",
            "a@b.example wrote|a@b.example wrote",
    })
    void secretsInUrlsAreShownAsStars_theRestAsItIs(String text, String shown) {
        assertThat(Redact.url(text)).isEqualTo(shown);
    }
}
