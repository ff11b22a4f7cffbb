package io.unitas.spring.replicatedjpa;

import java.nio.charset.StandardCharsets;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A user's account, mapped by JPA; its change travels as {@code balance version}. */
@Entity
public class Account {

    @Id
    private String userId;
    private long balance;
    private long version;

    protected Account() {}

    Account(String userId) {
        this.userId = userId;
    }

    public String getUserId() {
        return userId;
    }

    public long getBalance() {
        return balance;
    }

    public long getVersion() {
        return version;
    }

    void set(long balance) {
        this.balance = balance;
        this.version++;
    }

    byte[] encode() {
        return (balance + " " + version).getBytes(StandardCharsets.UTF_8);
    }
}
