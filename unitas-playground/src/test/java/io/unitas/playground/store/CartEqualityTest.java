package io.unitas.playground.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.crdt.OrMap;
import org.junit.jupiter.api.Test;

/** A cart is its stored state (an OR-map): read back from it, it equals the cart that was stored. */
class CartEqualityTest {

    @Test
    void aCartReadBackFromItsStoredLinesIsTheSameCart() {
        Cart cart = Cart.empty().add("cn", "book", 1).add("eu", "cup", 2);

        Cart readBack = Cart.of(cart.state());

        assertThat(readBack).isEqualTo(cart).hasSameHashCodeAs(cart);
        assertThat(readBack.items()).isEqualTo(cart.items());
    }

    @Test
    void cartsWithOtherLinesAreNotEqual() {
        Cart cart = Cart.empty().add("cn", "book", 1);

        assertThat(Cart.empty().add("cn", "book", 2)).isNotEqualTo(cart);
        assertThat(cart.remove("book")).isNotEqualTo(cart);
        assertThat(cart.equals(cart.state())).isFalse();
    }

    @Test
    void theTextListsTheItems() {
        assertThat(Cart.empty().add("cn", "book", 3)).hasToString("Cart{book=3}");
    }

    @Test
    void aCartDecodedFromItsPayloadIsTheSameCart_concurrentQuantitiesIncluded() {
        Cart before = Cart.empty().add("cn.1", "book", 1);
        Cart merged = before.set("cn.1", "book", 5).merge(before.set("eu.1", "book", 3)).add("eu.1", "cup", 2);

        Cart decoded = ChangeCodec.cart(ChangeCodec.cart(merged));

        assertThat(decoded).isEqualTo(merged);
        assertThat(decoded.lines()).containsExactlyInAnyOrder(
                new CartLine("book", 5), new CartLine("book", 3), new CartLine("cup", 2));
        assertThat(decoded.quantity("book")).isEqualTo(5);
    }

    @Test
    void thePayloadKeepsTheFormatStoredBeforeTheCartMovedOntoTheMap() {
        Cart cart = Cart.empty().add("cn", "book", 1).add("cn", "cup", 2);

        assertThat(ChangeCodec.cart(cart))
                .isEqualTo("context=cn%3A2&item=book&quantity=1&dots=cn%3A1&item=cup&quantity=2&dots=cn%3A2");
        assertThat(ChangeCodec.cart("context=cn%3A2&item=book&quantity=1&dots=cn%3A1&item=cup&quantity=2&dots=cn%3A2"))
                .isEqualTo(cart);
    }

    @Test
    void aStateWithAnotherValuePolicy_isRefused() {
        OrMap<String, Integer> other = OrMap.empty(Math::min);

        assertThatThrownBy(() -> Cart.of(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("(expected: Cart.LARGER)");
    }
}
