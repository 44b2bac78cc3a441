#!/usr/bin/env python3
"""A local OAuth issuer for benchmarking tern serve --auth-issuer: serves its metadata and JWKS on 127.0.0.1, writes
one long-lived RS256 access token to a file, and stops by itself after --minutes.

  python3 bench/local-issuer.py --audience https://mcp.bench.test/mcp --token-file /tmp/token --minutes 15
"""
import argparse
import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--audience", required=True)
    p.add_argument("--token-file", required=True)
    p.add_argument("--scope", default="users:read")
    p.add_argument("--minutes", type=float, default=15)
    args = p.parse_args()

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "RSA", "kid": "bench", "use": "sig", "alg": "RS256",
           "n": b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
           "e": b64(numbers.e.to_bytes(3, "big"))}
    server = ThreadingHTTPServer(("127.0.0.1", 0), None)
    issuer = f"http://127.0.0.1:{server.server_address[1]}"
    metadata = json.dumps({"issuer": issuer, "jwks_uri": issuer + "/jwks",
                           "token_endpoint": issuer + "/token"}).encode()
    jwks = json.dumps({"keys": [jwk]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = jwks if self.path == "/jwks" else metadata if self.path.startswith("/.well-known/") else None
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server.RequestHandlerClass = Handler
    now = int(time.time())
    header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "bench"}).encode())
    claims = b64(json.dumps({"iss": issuer, "sub": "bench", "aud": args.audience, "scope": args.scope,
                             "iat": now, "nbf": now, "exp": now + int(args.minutes * 60) + 3600}).encode())
    signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    with open(args.token_file, "w") as f:
        f.write(f"{header}.{claims}.{b64(signature)}")
    print(issuer, flush=True)
    threading.Timer(args.minutes * 60, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
