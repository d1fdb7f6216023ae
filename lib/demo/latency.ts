import type { LatencySeries, ProbeSample, ServerSample, SketchWire } from '../protocol';
import { LatencySketch } from '../sketch';
import type { HostMoment } from './behaviour';
import type { DemoHost } from './fleet';
import { channel, mix, normal, round, seededRandom, smooth, unit } from './noise';
import type { DemoService } from './services';

export const LATENCY_NAME = 'inference.request';
/** At most this many latencies are drawn per report; each then stands for a whole number of requests. */
const MAX_DRAWS = 120;

/** vLLM's histograms as the agent's --scrape names and tags them (the server's labels, and the target's name). */
export const TTFT_NAME = 'vllm:time_to_first_token_seconds';
export const ITL_NAME = 'vllm:inter_token_latency_seconds';
const OUTPUT_TOKENS_PER_REQUEST = 180;

/** One series per service: the interval's request latencies, tagged with the model it serves; an LLM engine's TTFT and ITL. */
export function latencySeries(host: DemoHost, tMs: number, intervalMs: number, m: HostMoment, services: readonly DemoService[]): LatencySeries[] {
  return services.flatMap((service): LatencySeries[] => {
    const random = seededRandom(mix(channel(host.seed, host.hostname, 'latency', service.name), tMs));
    // llama.cpp's --metrics has counters and gauges only: no latency histogram to read.
    if (service.name === 'llama-server') return [];
    if (service.name === 'vllm') return tokenSeries(m, service, Math.round(m.rps * (intervalMs / 1000) * (0.9 + 0.2 * random())), random);
    const requests = Math.round((m.rps / services.length) * (intervalMs / 1000) * (0.9 + 0.2 * random()));
    return requests === 0 ? [] : [{ name: LATENCY_NAME, tags: { model: service.model }, sketch: requestSketch(host, m, service, requests, random) }];
  });
}

/**
 * Log-normal around the model's median, slower under load, with the tail each planted problem adds: a request
 * whose thread lost its vCPU to the neighbour waits for it to come back, longer the more is stolen.
 */
function requestSketch(host: DemoHost, m: HostMoment, service: DemoService, requests: number, random: () => number): SketchWire {
  const draws = Math.min(requests, MAX_DRAWS);
  const perDraw = Math.floor(requests / draws);
  const withOneMore = requests % draws;
  const median = service.medianMs * (1 + 0.25 * m.load);
  const c = host.condition;
  const sketch = new LatencySketch();
  for (let i = 0; i < draws; i++) {
    let ms = median * Math.exp(0.3 * normal(random)) * (1 + (m.stealPct / 100) * 1.5);
    const tail = random();
    if (tail < (m.stealPct / 100) * 0.5) ms += m.stealPct * (0.5 + 3.5 * random());
    if (c === 'sata-await' && tail > 0.94) ms += 35 * (1 + 3 * random());
    if (c === 'quota-throttled' && tail > 1 - (m.throttledPct / 100) * 0.4) ms += 100 * random();
    if (c === 'hidden-neighbour') ms *= 1 + (m.psiCpuPct / 100) * 0.5;
    if (c === 'openmp-oversubscribed') ms = ms * 1.4 + (tail > 0.95 ? 30 + 60 * random() : 0);
    // A preempted request is computed again from its prompt once blocks free up: its prefill and its wait again.
    if (m.preemptionsPerMin !== null && tail > 1 - Math.min(0.5, m.preemptionsPerMin / Math.max(1, m.rps * 60))) ms += median * (2 + 3 * random());
    sketch.add(ms, perDraw + (i < withOneMore ? 1 : 0));
  }
  return sketch.toWire();
}

/** Draws `total` observations, at most MAX_DRAWS of them, each standing for a whole number of the rest. */
function drawn(total: number, random: () => number, draw: () => number): SketchWire {
  const draws = Math.min(total, MAX_DRAWS);
  const sketch = new LatencySketch();
  for (let i = 0; i < draws; i++) sketch.add(draw(), Math.floor(total / draws) + (i < total % draws ? 1 : 0));
  return sketch.toWire();
}

/**
 * vLLM's time to first token and inter-token latency. A full KV cache admits no new sequence until blocks free up,
 * so in an episode new requests wait (TTFT), and the engine recomputes preempted sequences in prefill chunks that
 * share steps with decoding, so more gaps between tokens are long (ITL).
 */
function tokenSeries(m: HostMoment, service: DemoService, requests: number, random: () => number): LatencySeries[] {
  if (requests === 0) return [];
  const tags = { model_name: service.model, scrape: 'vllm' };
  const steadyWaitMs = m.preemptionsPerMin ? 25 : 0;
  const ttft = drawn(requests, random, () => {
    const prefillMs = service.medianMs * (1 + 0.25 * m.load) * Math.exp(0.35 * normal(random));
    return prefillMs - Math.log(1 - random()) * (steadyWaitMs + 400 * m.kvEpisode);
  });
  const prefillShare = 0.006 + 0.2 * m.kvEpisode;
  const itl = drawn(requests * OUTPUT_TOKENS_PER_REQUEST, random, () => {
    const gapMs = 28 * (1 + 0.3 * m.load) * Math.exp(0.18 * normal(random));
    return random() < prefillShare ? gapMs * (2 + 2.5 * random()) : gapMs;
  });
  return [{ name: TTFT_NAME, tags, sketch: ttft }, { name: ITL_NAME, tags, sketch: itl }];
}

/** The model servers the agent's --scrape reads: the LLM engines; nothing on other hosts. */
export function serverSamples(host: DemoHost, m: HostMoment): ServerSample[] | undefined {
  if (host.service === 'llama-server') {
    // llama.cpp: deferred and processing requests, and generation seconds over generated tokens; no KV gauge any more.
    return [{
      name: 'llama',
      ok: true,
      error: null,
      requestsPerS: round(m.rps, 2),
      latencyMeanMs: null,
      queueMeanMs: null,
      waiting: round(Math.max(0, 1.5 * m.load - 0.6), 1),
      running: round(1 + 3 * m.load, 0),
      batchSize: null,
      droppedSeries: 0,
      tokenMeanMs: round(48 * (1 + 0.2 * m.load), 1),
      kvCachePct: null,
      preemptionsPerMin: null,
    }];
  }
  if (host.service === 'vllm' && m.kvCachePct !== null && m.preemptionsPerMin !== null) {
    return [{
      name: 'vllm',
      ok: true,
      error: null,
      requestsPerS: round(m.rps, 2),
      // Means from the e2e and queue-time histograms' sums and counts: a whole generation, and the wait for a slot.
      latencyMeanMs: round((200 + OUTPUT_TOKENS_PER_REQUEST * 28) * (1 + 0.3 * m.load) * (1 + 0.4 * m.kvEpisode), 1),
      queueMeanMs: round(12 + 8 * m.load + 900 * m.kvEpisode, 1),
      waiting: round(0.5 + 2 * m.load + 14 * m.kvEpisode, 1),
      running: round(20 + 30 * m.load, 0),
      batchSize: null,
      droppedSeries: 0,
      tokenMeanMs: null,
      kvCachePct: round(m.kvCachePct, 1),
      preemptionsPerMin: round(m.preemptionsPerMin, 1),
    }];
  }
  if (m.kvCachePct === null || m.preemptionsPerMin === null) return undefined;
  return [{
    name: 'vllm',
    ok: true,
    error: null,
    requestsPerS: round(m.rps, 2),
    latencyMeanMs: null,
    queueMeanMs: null,
    waiting: round(1 + 4 * m.load, 1),
    running: round(24 + 40 * m.load, 0),
    batchSize: null,
    droppedSeries: 0,
    tokenMeanMs: null,
    kvCachePct: round(m.kvCachePct, 1),
    preemptionsPerMin: round(m.preemptionsPerMin, 1),
  }];
}

export const PROBE_TARGETS = {
  'nix-users': 'tcp://nix-users.example:443',
  models: 'https://models.example/healthz',
} as const;

/** A TCP connect to where Norwegian users are (NIX in Oslo), and an HTTPS check of the model store. */
export function probeSamples(host: DemoHost, tMs: number): ProbeSample[] {
  const jitter = (what: string) => 0.95 + 0.08 * smooth(channel(host.seed, host.hostname, what), tMs, 180_000) + 0.03 * unit(channel(host.seed, host.hostname, what, 'jitter'), tMs);
  const failed = unit(channel(host.seed, host.hostname, 'probe-failure'), tMs) < 0.002;
  const nixMs = host.rttMs.nixUsers * jitter('rtt-nix');
  const modelsMs = host.rttMs.models * jitter('rtt-models');
  return [
    {
      name: 'nix-users',
      target: PROBE_TARGETS['nix-users'],
      ok: !failed,
      connectMs: failed ? null : round(nixMs, 3),
      responseMs: null,
      error: failed ? 'connect ETIMEDOUT' : null,
    },
    {
      name: 'models',
      target: PROBE_TARGETS.models,
      ok: true,
      connectMs: round(modelsMs, 3),
      responseMs: round(modelsMs * 2 + 3 + 5 * unit(channel(host.seed, host.hostname, 'models-response'), tMs), 3),
      error: null,
    },
  ];
}
