package io.unitas.spring.replicatedjpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The accounts' Spring Data repository. */
public interface Accounts extends JpaRepository<Account, String> {}
