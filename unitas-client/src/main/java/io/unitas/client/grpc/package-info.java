/** The routing context over grpc-java: server and client interceptors ({@link io.unitas.client.grpc.RoutingGrpc}). */
package io.unitas.client.grpc;
