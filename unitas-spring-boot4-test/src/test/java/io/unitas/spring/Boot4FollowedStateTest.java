package io.unitas.spring;

/** The followed routing state's contract on Spring Boot 4.0 (this module's class path). */
class Boot4FollowedStateTest extends FollowedStateContract {
}
