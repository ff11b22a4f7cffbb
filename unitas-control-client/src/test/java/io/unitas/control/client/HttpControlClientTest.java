package io.unitas.control.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class HttpControlClientTest {

    @Test
    void theEventFormatIsIdEventData() {
        List<ControlClient.WatchEvent> events = new ArrayList<>();
        HttpControlClient.readEvents(List.of(": heartbeat", "", "retry: 1000", "", "id: 7", "event: state",
                                             "data: {\"revision\":7}", "", "id: 8", "event: other", "data: x", "")
                                         .iterator(), events::add);

        assertThat(events).containsExactly(new ControlClient.WatchEvent(7, "{\"revision\":7}"));
    }

    @Test
    void aResponseBodyThatIsNotJsonIsNamedSo() {
        assertThatThrownBy(() -> new ControlResponse(502, "<html>", 0).json())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not valid JSON: ");
    }
}
