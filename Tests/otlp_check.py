#!/usr/bin/env python3
"""Checks OTLP/JSON export requests against the official message definitions (opentelemetry-proto).

Usage: otlp_check.py traces|logs FILE [--spans N] [--logs N] [--requests N]
       otlp_check.py same traces|logs JSONFILE BODY...

The second form checks protobuf bodies (gzip or not) against the JSON requests of the same export: each body
parses with the official definitions, serializes back to the very same bytes (no unknown fields, canonical
order), and equals its JSON request.

FILE holds one ExportTraceServiceRequest or ExportLogsServiceRequest per line (NDJSON), or, for the receiver,
one request per file. Each is parsed with unknown fields rejected. OTLP/JSON writes ids as hex where protobuf's
own JSON mapping expects base64, so ids are checked as hex of the right length and converted first. Then the
tree: every parent span id exists, children lie within their parents (a child that outlives its parent is
counted as "outliving": async and unstructured tasks may). Prints one summary line the tests compare.
"""
import base64, gzip, json, sys
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

ID_LENGTHS = {"traceId": 16, "spanId": 8, "parentSpanId": 8}


def hex_ids_to_base64(node, problems):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_LENGTHS and isinstance(value, str):
                try:
                    raw = bytes.fromhex(value)
                except ValueError:
                    raw = b""
                if len(raw) != ID_LENGTHS[key] or value != value.lower():
                    problems.append(f"{key} {value!r} is not {ID_LENGTHS[key] * 2} lowercase hex digits")
                node[key] = base64.b64encode(raw).decode()
            else:
                hex_ids_to_base64(value, problems)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item, problems)


def same():
    signal, json_path, bodies = sys.argv[2], sys.argv[3], sys.argv[4:]
    message_type = ExportTraceServiceRequest if signal == "traces" else ExportLogsServiceRequest
    problems = []
    from_json = []
    with open(json_path) as lines:
        for line in lines:
            if line.strip():
                document = json.loads(line)
                hex_ids_to_base64(document, problems)
                from_json.append(json_format.Parse(json.dumps(document), message_type(), ignore_unknown_fields=False))
    gzipped = 0
    for index, path in enumerate(bodies):
        raw = open(path, "rb").read()
        if raw[:2] == b"\x1f\x8b":
            gzipped += 1
            raw = gzip.decompress(raw)
        message = message_type()
        message.ParseFromString(raw)
        if message.SerializeToString(deterministic=True) != raw:
            problems.append(f"body {index}: not canonical (unknown fields, or fields out of order)")
        if index >= len(from_json) or message != from_json[index]:
            problems.append(f"body {index}: differs from JSON request {index}")
    if len(bodies) != len(from_json):
        problems.append(f"{len(bodies)} protobuf bodies, {len(from_json)} JSON requests")
    print(f"same={int(not problems)} requests={len(bodies)} gzipped={gzipped}")
    for problem in problems[:20]:
        print("problem:", problem)
    return 0 if not problems else 1


def main():
    if sys.argv[1] == "same":
        return same()
    signal, path = sys.argv[1], sys.argv[2]
    expected = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    problems, spans, records, requests, resources = [], {}, 0, 0, 0
    message_type = ExportTraceServiceRequest if signal == "traces" else ExportLogsServiceRequest
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            requests += 1
            document = json.loads(line)
            hex_ids_to_base64(document, problems)
            request = json_format.Parse(json.dumps(document), message_type(), ignore_unknown_fields=False)
            if signal == "traces":
                for resource in request.resource_spans:
                    resources += 1
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            spans[(span.trace_id, span.span_id)] = span
            else:
                for resource in request.resource_logs:
                    resources += 1
                    for scope in resource.scope_logs:
                        for record in scope.log_records:
                            records += 1
                            if record.severity_number == 0 and not record.severity_text:
                                problems.append(f"line {number}: a record without severity")
    orphans = outliving = 0
    for span in spans.values():
        if span.end_time_unix_nano < span.start_time_unix_nano:
            problems.append(f"span {span.name} ends before it starts")
        if span.parent_span_id:
            parent = spans.get((span.trace_id, span.parent_span_id))
            if parent is None:
                orphans += 1
            elif span.start_time_unix_nano < parent.start_time_unix_nano or span.end_time_unix_nano > parent.end_time_unix_nano:
                outliving += 1
    if orphans:
        problems.append(f"{orphans} spans name a parent that is not there")
    counts = {"--requests": requests, "--spans": len(spans), "--logs": records}
    for option, value in expected.items():
        if str(counts[option]) != value:
            problems.append(f"{option} expected {value}, found {counts[option]}")
    print(f"ok={int(not problems)} requests={requests} resources={resources} spans={len(spans)} logs={records} "
          f"orphans={orphans} outliving={outliving}")
    for problem in problems[:20]:
        print("problem:", problem)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
