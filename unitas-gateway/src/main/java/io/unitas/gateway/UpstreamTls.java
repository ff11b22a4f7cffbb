package io.unitas.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

/**
 * TLS to one region's upstreams: the peer must present a certificate that chains to the configured CAs (or the
 * JDK's) and names the server, as HTTPS checks it; HTTP/2 is agreed by ALPN.
 */
final class UpstreamTls {

    private final SslContext context;
    private final String serverName;

    private UpstreamTls(SslContext context, String serverName) {
        this.context = context;
        this.serverName = serverName;
    }

    /** The client side of {@code tls} for {@code protocol}; a CA file that cannot be used is named. */
    static UpstreamTls of(GatewayConfig.Tls tls, GatewayConfig.Protocol protocol) {
        String alpn = protocol.http2() ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1;
        SslContextBuilder b = SslContextBuilder.forClient().applicationProtocolConfig(new ApplicationProtocolConfig(
                ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        if (tls.ca() != null) {
            b.trustManager(tls.ca().toFile());
        }
        try {
            if (tls.cert() != null) {
                b.keyManager(tls.cert().toFile(), tls.key().toFile()); // who this gateway is, to a peer that asks
            }
            return new UpstreamTls(b.build(), tls.serverName());
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("tls " + (tls.ca() == null ? "" : "ca " + tls.ca() + " ")
                    + (tls.cert() == null ? "" : "cert " + tls.cert() + " key " + tls.key() + " ") + ": "
                    + e.getMessage(), e);
        }
    }

    /** What keeps {@code ca} from serving as a CA file, or {@code null} when it will do. */
    static String caProblem(Path ca) {
        try (InputStream in = Files.newInputStream(ca)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()
                   ? "'" + ca + "' holds no certificate (expected: PEM CA certificates)" : null;
        } catch (IOException e) {
            return "'" + ca + "' cannot be read (" + e.getClass().getSimpleName() + ")";
        } catch (CertificateException e) {
            return "'" + ca + "' is not a PEM certificate file: " + e.getMessage();
        }
    }

    /** A handshake with {@code host}, verified against the configured server name, or else {@code host}. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        String name = serverName != null ? serverName : host;
        SslHandler handler = context.newHandler(alloc, name, port);
        SSLParameters params = handler.engine().getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        handler.engine().setSSLParameters(params);
        return handler;
    }
}
