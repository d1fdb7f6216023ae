// A small ONNX Runtime inference service for the live findings test (onnxruntime-node: the same C++ library as
// Python's onnxruntime): the tiny conv net in a serving loop, each request timed and sent to the agent's StatsD intake.
// Its intra-op pool is ONNX Runtime's default (the host's physical cores), as most services leave it.
// Usage: node ort_serve.mjs MODEL STATSD_PORT SERIES_NAME
import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const ort = require(process.env.ORT_MODULE ?? 'onnxruntime-node');
const [model, port, name] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model);
const socket = dgram.createSocket('udp4');
const x = new ort.Tensor('float32', Float32Array.from({ length: 2 * 3 * 48 * 48 }, (_, i) => Math.sin(i)), [2, 3, 48, 48]);
for (;;) {
  const started = performance.now();
  await session.run({ x });
  socket.send(`${name}:${(performance.now() - started).toFixed(3)}|ms`, Number(port), '127.0.0.1');
  await sleep(5);
}
