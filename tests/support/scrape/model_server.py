"""A model server's /metrics, served by the real Prometheus client library (Debian's python3-prometheus-client, the
library vLLM and BentoML use), under the servers' own metric names, labels and bucket layouts. It runs no model: the
test tells it on stdin what to observe, one JSON command a line, and it answers "ok N" on stdout.

    {"observe": [{"metric": "vllm:e2e_request_latency_seconds", "labels": {...}, "values": [0.4, 1.2]}]}
    {"add": [{"metric": "nv_inference_request_duration_us", "labels": {...}, "value": 1200}]}
    {"set": [{"metric": "vllm:num_requests_waiting", "labels": {...}, "value": 3}]}
    {"malformed": true}     serve a broken exposition until {"malformed": false}

Usage: model_server.py --servers vllm,triton [--port N] | --print COMMANDS.jsonl (print one exposition, exit)

Where the names come from: vLLM vllm/v1/metrics/loggers.py; SGLang python/sglang/srt/metrics/collector.py (the
default buckets; labels as its launcher sets them); NVIDIA Dynamo's frontend lib/llm/src/http/service/metrics.rs with
the names of lib/runtime/src/metrics/prometheus_names.rs (its Rust client prints the same text format, without
_created); TGI router/src/server.rs (35 duration buckets from
0.00015 s, ×1.5) and docs/source/reference/metrics.md; BentoML's default configuration (the client's default
buckets); Ray Serve serve/_private/constants.py (DEFAULT_LATENCY_BUCKET_MS); Triton docs/user_guide/metrics.md;
TorchServe docs/metrics.md. Triton's and TorchServe's cumulative durations are counters without a _total suffix,
which this client cannot print as TYPE counter in the 0.0.4 format: they are served as untyped under their exact
sample names.
"""

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric

REQUEST_LATENCY = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
TGI_DURATION = []
_value = 0.0001
for _ in range(35):
    _value *= 1.5
    TGI_DURATION.append(_value)
CLIENT_DEFAULT = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
RAY_MS = [1, 2, 5, 10, 20, 50, 100, 200, 300, 400, 500, 1000, 2000, 5000, 10000, 60000, 120000, 300000, 600000]
SGLANG_TTFT = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400]
SGLANG_E2E = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400]
SGLANG_ITL = [0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060, 0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000]
SGLANG_QUEUE = [0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000]


def log_buckets(low, high, count):
    """Dynamo's generate_log_buckets: count bounds spaced evenly in log between low and high, both included."""
    return [round(low * (high / low) ** (i / (count - 1)), 6) for i in range(count)]


DYNAMO_REQUEST = log_buckets(1.0, 256.0, 10)
DYNAMO_TTFT = log_buckets(0.001, 480.0, 18)
DYNAMO_ITL = log_buckets(0.001, 2.0, 13)

VLLM = ["model_name", "engine"]
SGLANG = ["model_name", "engine_type", "tp_rank", "pp_rank"]
DYNAMO = ["model"]
TRITON = ["model", "version"]
TORCHSERVE = ["uuid", "model_name", "model_version"]


class Untyped:
    """Cumulative values printed as untyped samples with exactly the server's names (Triton, TorchServe)."""

    def __init__(self, names, labelnames):
        self.names = names
        self.labelnames = labelnames
        self.values = {}
        self.lock = threading.Lock()

    def add(self, name, labels, value):
        key = (name, tuple(labels[n] for n in self.labelnames))
        with self.lock:
            self.values[key] = self.values.get(key, 0.0) + value

    def collect(self):
        with self.lock:
            values = dict(self.values)
        for name in self.names:
            metric = Metric(name, f"{name} (cumulative)", "unknown")
            for (sample_name, labelvalues), value in sorted(values.items()):
                if sample_name == name:
                    metric.add_sample(name, dict(zip(self.labelnames, labelvalues)), value)
            yield metric


def build(servers, registry):
    metrics = {}

    def histogram(name, doc, labels, buckets):
        metrics[name] = Histogram(name, doc, labels, buckets=buckets, registry=registry)

    def gauge(name, doc, labels):
        metrics[name] = Gauge(name, doc, labels, registry=registry)

    if "vllm" in servers:
        histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", VLLM, REQUEST_LATENCY)
        histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", VLLM, REQUEST_LATENCY)
        histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", VLLM, TTFT)
        histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", VLLM, ITL)
        gauge("vllm:num_requests_running", "Number of requests in model execution batches.", VLLM)
        gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", VLLM)
        histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", VLLM, ITL)
        gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", VLLM)
        metrics["vllm:num_preemptions"] = Counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", VLLM, registry=registry)
        metrics["vllm:request_success"] = Counter("vllm:request_success", "Count of successfully processed requests.", VLLM + ["finished_reason"], registry=registry)
    if "sglang" in servers:
        histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.", SGLANG, SGLANG_TTFT)
        histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", SGLANG, SGLANG_ITL)
        histogram("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds", SGLANG, SGLANG_E2E)
        histogram("sglang:queue_time_seconds", "Histogram of queueing time in seconds.", SGLANG, SGLANG_QUEUE)
        gauge("sglang:num_running_reqs", "The number of running requests.", SGLANG)
        gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", SGLANG)
        gauge("sglang:token_usage", "The token usage.", SGLANG)
        metrics["sglang:num_retracted_requests"] = Counter("sglang:num_retracted_requests", "Total number of retracted requests.", SGLANG, registry=registry)
    if "dynamo" in servers:
        histogram("dynamo_frontend_request_duration_seconds", "Duration of LLM requests", DYNAMO, DYNAMO_REQUEST)
        histogram("dynamo_frontend_time_to_first_token_seconds", "Time to first token in seconds", DYNAMO, DYNAMO_TTFT)
        histogram("dynamo_frontend_inter_token_latency_seconds", "Inter-token latency in seconds", DYNAMO, DYNAMO_ITL)
        gauge("dynamo_frontend_inflight_requests", "Number of inflight requests", DYNAMO)
        gauge("dynamo_frontend_queued_requests", "Number of requests in HTTP processing queue", DYNAMO)
    if "tgi" in servers:
        histogram("tgi_request_duration", "Total time spent processing the request (e2e latency)", [], TGI_DURATION)
        histogram("tgi_request_queue_duration", "Time spent in the queue per request", [], TGI_DURATION)
        gauge("tgi_batch_current_size", "Current batch size", [])
        gauge("tgi_queue_size", "Current queue size", [])
    if "bentoml" in servers:
        histogram("bentoml_service_request_duration_seconds", "API server request duration in seconds",
                  ["endpoint", "service_name", "service_version", "http_response_code", "runner_name"], CLIENT_DEFAULT)
    if "ray" in servers:
        histogram("ray_serve_http_request_latency_ms", "The end-to-end latency of HTTP requests (measured from the Serve HTTP proxy).",
                  ["route", "method", "application", "status_code"], RAY_MS)
        histogram("ray_serve_deployment_processing_latency_ms", "The latency for queries to be processed.",
                  ["deployment", "replica", "route", "application"], RAY_MS)
    if "triton" in servers:
        counters = Untyped(["nv_inference_request_success", "nv_inference_request_failure", "nv_inference_count", "nv_inference_exec_count",
                            "nv_inference_request_duration_us", "nv_inference_queue_duration_us"], TRITON)
        registry.register(counters)
        for name in counters.names:
            metrics[name] = counters
        gauge("nv_inference_pending_request_count", "Instantaneous number of pending requests awaiting execution per-model.", TRITON)
    if "torchserve" in servers:
        counters = Untyped(["ts_inference_latency_microseconds", "ts_queue_latency_microseconds"], TORCHSERVE)
        registry.register(counters)
        for name in counters.names:
            metrics[name] = counters
        metrics["ts_inference_requests"] = Counter("ts_inference_requests", "Total number of inference requests.", TORCHSERVE, registry=registry)
    return metrics


class Server:
    def __init__(self, servers):
        self.registry = CollectorRegistry()
        self.metrics = build(servers, self.registry)
        self.malformed = False
        # A scrape sees a command applied whole or not at all, as a server's one request would be.
        self.lock = threading.Lock()

    def apply(self, command):
        with self.lock:
            self._apply(command)

    def _apply(self, command):
        for item in command.get("observe", []):
            child = self.metrics[item["metric"]].labels(**item.get("labels", {})) if item.get("labels") else self.metrics[item["metric"]]
            for value in item["values"]:
                child.observe(value)
        for item in command.get("add", []):
            metric = self.metrics[item["metric"]]
            if isinstance(metric, Untyped):
                metric.add(item["metric"], item.get("labels", {}), item["value"])
            else:
                (metric.labels(**item["labels"]) if item.get("labels") else metric).inc(item["value"])
        for item in command.get("set", []):
            metric = self.metrics[item["metric"]]
            (metric.labels(**item["labels"]) if item.get("labels") else metric).set(item["value"])
        if "malformed" in command:
            self.malformed = bool(command["malformed"])

    def exposition(self):
        with self.lock:
            text = generate_latest(self.registry)
        if self.malformed:
            # A label value that never closes: a line no parser can read.
            text += b'vllm:e2e_request_latency_seconds_bucket{le="0.5",model_name="broken 1.0\n'
        return text


def serve(server, port):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/metrics":
                self.send_error(404)
                return
            body = server.exposition()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    print(f"port {httpd.server_address[1]}", flush=True)
    for n, line in enumerate(sys.stdin, 1):
        if line.strip():
            server.apply(json.loads(line))
            print(f"ok {n}", flush=True)
    httpd.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", default="vllm")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--print", dest="print_commands")
    args = parser.parse_args()
    server = Server(set(args.servers.split(",")))
    if args.print_commands:
        with open(args.print_commands) as f:
            for line in f:
                if line.strip():
                    server.apply(json.loads(line))
        sys.stdout.write(server.exposition().decode())
        return
    serve(server, args.port)


if __name__ == "__main__":
    main()
