package io.unitas.gateway;

import javax.net.ssl.SSLException;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

/**
 * TLS on the gateway's listener, with its own certificate: HTTP/2 or HTTP/1.1 as ALPN agrees, so that another
 * region's gateway can reach it encrypted across a WAN. With a client CA it asks every client for a certificate and
 * accepts one only if it chains to that CA; a client without one is served as before (a user's browser has none),
 * and a certificate is what names a peer in {@code trusted_peers} ({@link TrustedPeers}).
 */
final class ListenerTls {

    private ListenerTls() {}

    /** The server side of {@code certificate}; a file that will not do is named with the reason. */
    static SslContext context(GatewayConfig.Certificate certificate) {
        try {
            SslContextBuilder b = SslContextBuilder.forServer(certificate.cert().toFile(), certificate.key().toFile());
            if (certificate.clientCa() != null) {
                b.trustManager(certificate.clientCa().toFile()).clientAuth(ClientAuth.OPTIONAL);
            }
            return b.applicationProtocolConfig(new ApplicationProtocolConfig(
                                            ApplicationProtocolConfig.Protocol.ALPN,
                                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(certificate.cert() + " and " + certificate.key()
                                               + (certificate.clientCa() == null ? "" : " with " + certificate.clientCa())
                                               + " are not a PEM certificate chain and its key"
                                               + (certificate.clientCa() == null ? "" : ", and CA certificates") + ": "
                                               + ProblemAnswers.reason(e), e);
        }
    }
}
