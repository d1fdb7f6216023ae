/** Deterministic noise: every demo value is a function of the fleet's seed, the host and the time, never of Math.random. */

/** FNV-1a over the text, then murmur3's finaliser so that nearby inputs land far apart. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const TWO_32 = 4_294_967_296;

/** A 32-bit hash of a seed and an integer of up to 53 bits (a timestamp, a slot number). */
export function mix(seed: number, n: number): number {
  const low = n >>> 0;
  const high = Math.floor(n / TWO_32) >>> 0;
  return fmix(Math.imul(fmix(seed ^ low) ^ high, 0x9e3779b1) ^ seed);
}

// Channels are named once per host and quantity; hashing the name on every sample was most of a report's cost.
const channels = new Map<string, number>();

/** The seed of one named quantity, e.g. channel(seed, 'oslo-inf-04', 'steal'). */
export function channel(...parts: readonly (string | number)[]): number {
  const name = parts.join('|');
  let seed = channels.get(name);
  if (seed === undefined) channels.set(name, (seed = hash32(name)));
  return seed;
}

/** A value in [0, 1) fixed by a channel and an integer. */
export function unit(seed: number, n = 0): number {
  return mix(seed, Math.floor(n)) / TWO_32;
}

/** A value in [0, 1) that drifts smoothly with time, one new random level every `periodMs`. */
export function smooth(seed: number, tMs: number, periodMs: number): number {
  const x = tMs / periodMs;
  const k = Math.floor(x);
  const f = x - k;
  const eased = f * f * (3 - 2 * f);
  return unit(seed, k) * (1 - eased) + unit(seed, k + 1) * eased;
}

/** mulberry32: a small seeded generator for drawing many values (request latencies) in one report. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_32;
  };
}

/** A standard normal draw (Box–Muller). */
export function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export const round = (value: number, digits = 2) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

export const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
