package io.unitas.spring;

/** The followed routing state's contract on Spring Boot 3.5 (the starter's own test class path). */
class FollowedStateTest extends FollowedStateContract {
}
