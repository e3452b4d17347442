#!/usr/bin/env python3
"""A minimal OTLP/HTTP receiver for bench.py: answers every POST 200 with an empty body, keeps connections
alive, and does nothing with what it reads. Prints its port on the first line.

Usage: otlp_receiver.py
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        while length > 0:
            length -= len(self.rfile.read(min(length, 1 << 20)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
