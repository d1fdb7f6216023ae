import type { DemoHost } from './fleet';
import { QUOTA_CORES } from './services';
import { channel, clamp, smooth, unit } from './noise';

/** How busy a demo host is at one moment, before it is spread over vCPUs, disks and processes. */
export interface HostMoment {
  /** The diurnal load curve, 0.3 at 04:00 and 1 at 16:00 Oslo time. */
  load: number;
  rps: number;
  /** user + nice + system + irq + softirq, as a share of all vCPUs. */
  busyPct: number;
  stealPct: number;
  iowaitPct: number;
  /** PSI cpu some. */
  psiCpuPct: number;
  psiIoPct: number;
  /** CPU the service's own cgroup uses, in cores. */
  serviceCores: number;
  /** Share of the service cgroup's CFS periods that were throttled. */
  throttledPct: number;
  /** The LLM engine's KV cache in use and the requests it preempted per minute; null on hosts without one. */
  kvCachePct: number | null;
  preemptionsPerMin: number | null;
  /** 0, or up to 1 inside a KV-pressure episode: how hard new requests wait for cache blocks. */
  kvEpisode: number;
}

const HOUR_MS = 3_600_000;
const OSLO_UTC_OFFSET_H = 1;

export function diurnalLoad(tMs: number): number {
  const hour = (((tMs / HOUR_MS + OSLO_UTC_OFFSET_H) % 24) + 24) % 24;
  return 0.3 + 0.7 * ((1 - Math.cos((2 * Math.PI * (hour - 4)) / 24)) / 2);
}

// Steal spikes: in each 4-minute slot a spike may start, last 45–120 s and peak at 20–40 % above the base.
const SPIKE_SLOT_MS = 240_000;
const SPIKE_RAMP_MS = 15_000;

/** The noisy neighbour's extra steal at `tMs`: 0 between spikes. */
export function stealSpikePct(host: DemoHost, tMs: number): number {
  return 20 * spikeAt(host, tMs, '');
}

/** 0 between spikes, 1–2 at a spike's peak (ramped in and out); `kind` gives another sequence of spikes. */
function spikeAt(host: DemoHost, tMs: number, kind: string): number {
  const slot = Math.floor(tMs / SPIKE_SLOT_MS);
  let spike = 0;
  for (const s of [slot - 1, slot]) {
    const u = (what: string) => unit(channel(host.seed, host.hostname, `${kind}${what}`), s);
    if (u('spike') >= 0.7) continue;
    const start = s * SPIKE_SLOT_MS + u('spike-start') * 150_000;
    const duration = 45_000 + u('spike-length') * 75_000;
    const x = tMs - start;
    if (x < 0 || x > duration) continue;
    const envelope = Math.min(1, x / SPIKE_RAMP_MS, (duration - x) / SPIKE_RAMP_MS);
    spike = Math.max(spike, (1 + u('spike-peak')) * envelope);
  }
  return spike;
}

/**
 * The KV-pressure host's engine: a cache too small for the sequences it admits, so it preempts steadily, and in
 * bursts (long prompts arriving together) it fills up and preempts many at once.
 */
function kvState(host: DemoHost, tMs: number, load: number): { kvCachePct: number; preemptionsPerMin: number } {
  const burst = spikeAt(host, tMs, 'kv-');
  const drift = (what: string, periodMs: number) => smooth(channel(host.seed, host.hostname, what), tMs, periodMs);
  return {
    kvCachePct: Math.min(100, 88 + 5 * drift('kv-cache', 120_000) + 6 * burst),
    preemptionsPerMin: 7 + 5 * load + 3 * drift('kv-preempt', 90_000) + 40 * burst,
  };
}

// KV-pressure episodes: one in each 6-hour slot, 30–45 minutes long, ramped in and out over 5 minutes. Four a day
// leave most hours calm, so the hourly p99 baseline latency explained compares against stays the usual load's.
const EPISODE_SLOT_MS = 6 * 3_600_000;
const EPISODE_RAMP_MS = 5 * 60_000;
const EPISODE_MARGIN_MS = 45 * 60_000;

/** The host's KV-pressure episodes that overlap [fromMs, toMs); none on hosts without that condition. */
export function kvEpisodes(host: DemoHost, fromMs: number, toMs: number): { startMs: number; endMs: number }[] {
  if (host.condition !== 'kv-pressure-episodes') return [];
  const episodes = [];
  for (let slot = Math.floor(fromMs / EPISODE_SLOT_MS) - 1; slot * EPISODE_SLOT_MS < toMs; slot++) {
    const u = (what: string) => unit(channel(host.seed, host.hostname, `kv-episode-${what}`), slot);
    const durationMs = 30 * 60_000 + u('length') * 15 * 60_000;
    // At least 45 minutes from either end of its slot: episodes are never closer than 90 minutes to each other.
    const startMs = slot * EPISODE_SLOT_MS + EPISODE_MARGIN_MS + Math.floor(u('start') * (EPISODE_SLOT_MS - durationMs - 2 * EPISODE_MARGIN_MS));
    if (startMs < toMs && startMs + durationMs > fromMs) episodes.push({ startMs, endMs: startMs + durationMs });
  }
  return episodes;
}

function kvEpisodeAt(host: DemoHost, tMs: number): number {
  const [episode] = kvEpisodes(host, tMs, tMs + 1);
  if (!episode) return 0;
  return Math.min(1, (tMs - episode.startMs) / EPISODE_RAMP_MS, (episode.endMs - tMs) / EPISODE_RAMP_MS);
}

/**
 * The LLM region's vLLM engines: roomy caches with no preemption, but the episodes host's cache is sized for its
 * usual load, so it preempts a few requests a minute, and in an episode it fills up and preempts tens a minute.
 */
function llmKvState(host: DemoHost, tMs: number, load: number, episode: number): { kvCachePct: number; preemptionsPerMin: number } {
  const drift = (what: string, periodMs: number) => smooth(channel(host.seed, host.hostname, what), tMs, periodMs);
  if (host.condition !== 'kv-pressure-episodes') return { kvCachePct: 30 + 35 * load + 6 * drift('kv-cache', 120_000), preemptionsPerMin: 0 };
  const steady = { kvCachePct: 84 + 5 * drift('kv-cache', 120_000), preemptionsPerMin: 5.5 + 2.5 * drift('kv-preempt', 90_000) };
  return {
    kvCachePct: steady.kvCachePct + (97.5 + drift('kv-full', 60_000) - steady.kvCachePct) * episode,
    preemptionsPerMin: steady.preemptionsPerMin + (20 + 30 * drift('kv-episode-preempt', 120_000)) * episode,
  };
}

export function hostMoment(host: DemoHost, tMs: number): HostMoment {
  const drift = (what: string, periodMs: number) => smooth(channel(host.seed, host.hostname, what), tMs, periodMs);
  const load = diurnalLoad(tMs) * (0.9 + 0.2 * drift('load', 180_000));
  const scale = 0.75 + 0.3 * unit(channel(host.seed, host.hostname, 'scale'));
  const c = host.condition;
  const kvEpisode = kvEpisodeAt(host, tMs);

  let busyPct = 6 + 44 * load * scale;
  if (c === 'hidden-neighbour') busyPct = 18 + 12 * load;
  if (c === 'openmp-oversubscribed') busyPct = 55 + 35 * load;
  if (c === 'kmp-blocktime-unset') busyPct = Math.min(85, busyPct + 15);

  const stealPct = c === 'noisy-neighbour'
    ? Math.min(60, 7 + 3 * drift('steal', 90_000) + stealSpikePct(host, tMs))
    : c === 'hidden-neighbour' ? 0 : 0.1 + 0.7 * drift('steal', 300_000);
  const iowaitPct = c === 'sata-await' ? 11 + 6 * drift('iowait', 120_000) : 0.1 + 0.5 * drift('iowait', 240_000);

  let psiCpuPct = 1 + 6 * load + 2 * drift('psi-cpu', 60_000);
  if (c === 'noisy-neighbour') psiCpuPct = 0.45 * stealPct + 3 * load;
  if (c === 'hidden-neighbour') psiCpuPct = 28 + 8 * drift('psi-cpu', 60_000);
  if (c === 'openmp-oversubscribed') psiCpuPct = 15 + 25 * load;
  const psiIoPct = c === 'sata-await' ? 20 + 10 * drift('psi-io', 120_000) : 0.1 + 0.9 * drift('psi-io', 240_000);

  let serviceCores = (busyPct / 100) * host.vcpus * 0.85;
  let throttledPct = 0;
  if (c === 'quota-throttled') {
    serviceCores = QUOTA_CORES * (0.92 + 0.06 * drift('quota-usage', 60_000));
    throttledPct = 25 + 15 * drift('throttled', 120_000);
    busyPct = ((serviceCores + 0.4) / host.vcpus) * 100;
  }

  return {
    load,
    rps: host.peakRps * load,
    busyPct: clamp(busyPct, 0, 100 - stealPct - iowaitPct - 1),
    stealPct,
    iowaitPct,
    psiCpuPct: clamp(psiCpuPct, 0, 100),
    psiIoPct: clamp(psiIoPct, 0, 100),
    serviceCores,
    throttledPct,
    ...(c === 'kv-pressure' ? kvState(host, tMs, load) : host.service === 'vllm' ? llmKvState(host, tMs, load, kvEpisode) : { kvCachePct: null, preemptionsPerMin: null }),
    kvEpisode,
  };
}

/** vCPUs a noisy neighbour's vCPUs share cores with: they lose more. */
const STOLEN_VCPUS = new Set([2, 3, 6]);

/** How a host's steal spreads over its vCPUs (weights averaging 1). */
export function stealWeight(host: DemoHost, cpu: number): number {
  if (host.condition !== 'noisy-neighbour') return 1;
  const heavy = [...STOLEN_VCPUS].filter((c) => c < host.vcpus).length;
  const light = host.vcpus - heavy;
  const weight = STOLEN_VCPUS.has(cpu) ? 2.2 : 1;
  return (weight * host.vcpus) / (heavy * 2.2 + light);
}
