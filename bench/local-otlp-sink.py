#!/usr/bin/env python3
"""A local OTLP/HTTP sink for benchmarking tern serve --traces: accepts POST /v1/traces (and /v1/metrics, /v1/logs)
on 127.0.0.1, answers an empty export response, counts the requests and bytes it took, and stops by itself after
--minutes. It prints its base URL, then, on stop, one line of counts to stderr.

  python3 bench/local-otlp-sink.py --minutes 15    # prints http://127.0.0.1:PORT
"""
import argparse
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--minutes", type=float, default=15)
    p.add_argument("--counts-file", help="rewritten after every export: requests and bytes per path")
    args = p.parse_args()
    counts = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path not in ("/v1/traces", "/v1/metrics", "/v1/logs"):
                self.send_error(404)
                return
            with lock:
                n, size = counts.get(self.path, (0, 0))
                counts[self.path] = (n + 1, size + len(body))
                if args.counts_file:
                    with open(args.counts_file, "w") as f:
                        for path, (n, size) in sorted(counts.items()):
                            f.write(f"{path}\t{n}\t{size}\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    threading.Timer(args.minutes * 60, server.shutdown).start()
    server.serve_forever()
    print(" ".join(f"{path}={n} requests, {size} bytes" for path, (n, size) in sorted(counts.items())),
          file=sys.stderr)


if __name__ == "__main__":
    main()
