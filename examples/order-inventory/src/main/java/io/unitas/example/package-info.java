/**
 * The example service pair: an order service ({@link io.unitas.example.orders}) that reserves stock in an inventory
 * service ({@link io.unitas.example.inventory}) through Spring Cloud LoadBalancer, from an {@code @Async} method.
 * Neither holds a line of unitas code: the starter and {@code application.yaml} make them unit-aware. What is here
 * besides them is for watching them: every inbound call is recorded ({@link io.unitas.example.CallLog}) and
 * {@link io.unitas.example.ExampleService} starts one service in the calling process, as the playground does, and
 * {@link io.unitas.example.ExampleMain} one as a process of its own, as the process deployment does.
 */
package io.unitas.example;
