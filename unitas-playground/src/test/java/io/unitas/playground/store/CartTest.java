package io.unitas.playground.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CartTest {

    @Test
    void add_accumulatesQuantityOfOneItem() {
        Cart cart = Cart.empty().add("cn", "book", 1).add("cn", "book", 2);
        assertThat(cart.items()).containsExactly(Map.entry("book", 3));
        assertThat(cart.lines()).containsExactly(new CartLine("book", 3));
    }

    @Test
    void itemsAddedInTwoRegionsDuringAFailover_areAllKept() {
        Cart before = Cart.empty().add("cn", "book", 1);
        Cart cn = before.add("cn", "cup", 1);
        Cart eu = before.add("eu", "desk", 2);
        assertThat(cn.merge(eu).items()).containsExactly(
                Map.entry("book", 1), Map.entry("cup", 1), Map.entry("desk", 2));
    }

    @Test
    void concurrentRemoveAndAddOfOneItem_addWins() {
        Cart before = Cart.empty().add("cn", "book", 1);
        Cart cn = before.remove("book");
        Cart eu = before.add("eu", "book", 1);
        assertThat(cn.merge(eu).items()).containsExactly(Map.entry("book", 2));
    }

    @Test
    void removeThatObservedTheAdd_removesItEverywhere() {
        Cart cn = Cart.empty().add("cn", "book", 1);
        Cart eu = Cart.empty().merge(cn).remove("book");
        assertThat(cn.merge(eu).items()).isEmpty();
        assertThat(eu.merge(cn).items()).isEmpty();
    }

    @Test
    void concurrentQuantities_resolveToTheLargestUntilTheNextWrite() {
        Cart before = Cart.empty().add("cn", "book", 1);
        Cart merged = before.set("cn", "book", 5).merge(before.set("eu", "book", 3));
        assertThat(merged.quantity("book")).isEqualTo(5);
        assertThat(merged.lines()).hasSize(2);
        Cart next = merged.set("eu", "book", 2);
        assertThat(next.quantity("book")).isEqualTo(2);
        assertThat(next.lines()).containsExactly(new CartLine("book", 2));
    }

    @Test
    void setToZero_removesTheItem() {
        assertThat(Cart.empty().add("cn", "book", 2).set("cn", "book", 0).items()).isEmpty();
    }

    @Test
    void negativeQuantity_isRejectedWithWhatWasExpected() {
        assertThatThrownBy(() -> Cart.empty().set("cn", "book", -1))
                .hasMessage("quantity of book: -1 (expected: >= 0)");
    }
}
