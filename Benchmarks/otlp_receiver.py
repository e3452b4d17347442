#!/usr/bin/env python3
"""A minimal OTLP/HTTP receiver for bench.py: answers every POST 200 with an empty body, keeps connections
alive, and does nothing with what it reads. Prints its port on the first line.

Usage: otlp_receiver.py [--spans FILE] [--outage START:SECONDS]

--spans FILE: requests are http/json; for each span received, a line "span_id delay_seconds end_time" goes to
FILE (delay: from the span's end to its receipt), after a line "# outage START END" (Unix times) with --outage. --outage: from START seconds after the first request, answer
503 for SECONDS (a receiver that is down for a while).
"""
import http.server
import json
import sys
import threading
import time

arguments = sys.argv[1:]
spans_path = arguments[arguments.index("--spans") + 1] if "--spans" in arguments else None
outage = tuple(float(x) for x in arguments[arguments.index("--outage") + 1].split(":")) if "--outage" in arguments else None
spans_file = open(spans_path, "w", buffering=1) if spans_path else None
first = [None]
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = b""
        while len(body) < length:
            body += self.rfile.read(min(length - len(body), 1 << 20))
        now = time.time()
        with lock:
            if first[0] is None:
                first[0] = now
                if spans_file and outage:
                    spans_file.write(f"# outage {now + outage[0]:.3f} {now + outage[0] + outage[1]:.3f}\n")
            refused = outage is not None and outage[0] <= now - first[0] < outage[0] + outage[1]
        if refused:
            self.send_response(503)
        else:
            if spans_file:
                lines = []
                for resource in json.loads(body).get("resourceSpans", []):
                    for scope in resource.get("scopeSpans", []):
                        for span in scope.get("spans", []):
                            end = int(span['endTimeUnixNano']) / 1e9
                            lines.append(f"{span['spanId']} {now - end:.4f} {end:.4f}\n")
                with lock:
                    spans_file.writelines(lines)
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
