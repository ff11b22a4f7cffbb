/**
 * The playground's commands of {@code unitas}: {@code up}, {@code drill} and {@code demo} (with
 * {@code --processes}), packaged with the server distribution's commands and the playground, Spring Boot examples
 * and test servers included, as {@code unitas-playground.jar}. The server distribution ({@code unitas.jar}, module
 * {@code unitas-cli}) holds none of it.
 */
package io.unitas.playground.cli;
