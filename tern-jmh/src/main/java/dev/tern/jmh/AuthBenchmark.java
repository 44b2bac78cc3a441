package dev.tern.jmh;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.tern.auth.AuthOutcome;
import dev.tern.auth.ResourceServer;

/**
 * Checking a request's bearer JWT once the issuer's keys are cached: the full check (parse, signature, claims) and a
 * token seen before (the verified-token cache). The issuer's metadata and keys are served on 127.0.0.1 and fetched
 * once, in set-up.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class AuthBenchmark {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";

    @Param({"RS256", "ES256"})
    public String algorithm;

    private HttpServer issuer;
    private ResourceServer everyTime;
    private ResourceServer remembering;
    private String header;
    private String token;
    private JWSVerifier verifier;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        JWK key;
        JWSSigner signer;
        if (algorithm.equals("RS256")) {
            RSAKey rsa = new RSAKeyGenerator(2048).keyID("k1").generate();
            key = rsa;
            signer = new RSASSASigner(rsa);
        } else {
            ECKey ec = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
            key = ec;
            signer = new ECDSASigner(ec);
        }
        issuer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        String iss = "http://127.0.0.1:" + issuer.getAddress().getPort();
        String keys = new JWKSet(key.toPublicJWK()).toString();
        issuer.createContext("/.well-known/oauth-authorization-server",
                exchange -> respond(exchange, "{\"issuer\":\"" + iss + "\",\"jwks_uri\":\"" + iss + "/jwks\"}"));
        issuer.createContext("/jwks", exchange -> respond(exchange, keys));
        issuer.start();

        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.parse(algorithm)).keyID("k1").build(),
                new JWTClaimsSet.Builder().issuer(iss).subject("alice").audience(RESOURCE)
                        .claim("scope", "users:read").claim("client_id", "bench")
                        .expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).build());
        jwt.sign(signer);
        token = jwt.serialize();
        header = "Bearer " + token;
        verifier = key instanceof RSAKey rsa ? new RSASSAVerifier(rsa.toRSAPublicKey())
                : new ECDSAVerifier(((ECKey) key).toECPublicKey());

        everyTime = ResourceServer.builder(RESOURCE).authorizationServer(iss).verifiedTokenTtl(Duration.ZERO)
                .build();
        remembering = ResourceServer.builder(RESOURCE).authorizationServer(iss).build();
        for (ResourceServer server : new ResourceServer[] {everyTime, remembering}) {
            if (!(server.authenticate(header) instanceof AuthOutcome.Authenticated)) {
                throw new IllegalStateException("set-up token refused: " + server.authenticate(header));
            }
        }
    }

    private static void respond(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        everyTime.close();
        remembering.close();
        issuer.stop(0);
    }

    /** The floor: parsing the token and checking its signature alone, with Nimbus and a verifier made once. */
    @Benchmark
    public boolean signatureAlone() throws Exception {
        return SignedJWT.parse(token).verify(verifier);
    }

    @Benchmark
    public AuthOutcome verifySignatureWithCachedKeys() {
        return everyTime.authenticate(header);
    }

    @Benchmark
    public AuthOutcome verifyRememberedToken() {
        return remembering.authenticate(header);
    }
}
