package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A cart is its stored state: read back from it, it equals the cart that was stored. */
class CartEqualityTest {

    @Test
    void aCartReadBackFromItsStoredLinesIsTheSameCart() {
        Cart cart = Cart.empty().add("cn", "book", 1).add("eu", "cup", 2);

        Cart readBack = Cart.of(cart.lines());

        assertThat(readBack).isEqualTo(cart).hasSameHashCodeAs(cart);
        assertThat(readBack.items()).isEqualTo(cart.items());
    }

    @Test
    void cartsWithOtherLinesAreNotEqual() {
        Cart cart = Cart.empty().add("cn", "book", 1);

        assertThat(Cart.empty().add("cn", "book", 2)).isNotEqualTo(cart);
        assertThat(cart.remove("book")).isNotEqualTo(cart);
        assertThat(cart.equals(cart.lines())).isFalse();
    }

    @Test
    void theTextListsTheItems() {
        assertThat(Cart.empty().add("cn", "book", 3)).hasToString("Cart{book=3}");
    }
}
