import { SKETCH_MAX_VALUE_MS } from '../../lib/sketch';

export interface StatsdTiming {
  name: string;
  valueMs: number;
  /** 1 unless the client sampled (`|@0.1`): then each received timing stands for 1/sampleRate. */
  sampleRate: number;
  tags: Record<string, string>;
}

export interface StatsdParseResult {
  metrics: StatsdTiming[];
  malformed: number;
}

export const MAX_STATSD_NAME_LENGTH = 200;
export const MAX_STATSD_TAGS = 16;
const MAX_TAG_KEY_LENGTH = 100;
const MAX_TAG_VALUE_LENGTH = 200;

const TIMING_TYPES = new Set(['ms', 'h', 'd']);
const OTHER_TYPES = new Set(['c', 'g', 's']);
const NUMBER = /^\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Parses a StatsD / DogStatsD packet. Only timings (`ms`, `h`, `d`) are kept; counters, gauges, sets, events and
 * service checks are valid but skipped. Malformed lines are counted, never thrown.
 */
export function parseStatsdPacket(text: string): StatsdParseResult {
  const metrics: StatsdTiming[] = [];
  let malformed = 0;
  // One timing per datagram is what clients send by default: skip the split then.
  const lines = text.indexOf('\n') === -1 ? [text] : text.split('\n');
  for (const rawLine of lines) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') continue;
    if (!parseLine(line, metrics)) malformed++;
  }
  return { metrics, malformed };
}

/** Appends the line's timings to `out`; false when the line is malformed (then nothing is appended). */
function parseLine(line: string, out: StatsdTiming[]): boolean {
  if (line.startsWith('_e{') || line.startsWith('_sc|')) return true;
  const colon = line.indexOf(':');
  if (colon <= 0) return false;
  const name = line.slice(0, colon);
  if (name.length > MAX_STATSD_NAME_LENGTH) return false;
  const rest = line.slice(colon + 1);
  // Etsy StatsD packs several samples of one name as `name:1|ms:2|ms`; DogStatsD uses `name:1:2|ms`.
  const parts = rest.includes('|#') ? [] : rest.split(':');
  if (parts.length > 1 && parts.every((part) => part.includes('|'))) {
    const parsed: StatsdTiming[] = [];
    for (const part of parts) {
      if (!parseSample(name, part.split('|'), parsed)) return false;
    }
    out.push(...parsed);
    return true;
  }
  return parseSample(name, rest.split('|'), out);
}

function parseSample(name: string, sections: string[], out: StatsdTiming[]): boolean {
  const type = sections[1];
  if (type === undefined) return false;
  if (OTHER_TYPES.has(type)) return true;
  if (!TIMING_TYPES.has(type)) return false;
  let sampleRate = 1;
  let tags: Record<string, string> = {};
  for (let i = 2; i < sections.length; i++) {
    const section = sections[i]!;
    if (section.startsWith('@')) {
      sampleRate = parseNumber(section.slice(1));
      if (!(sampleRate > 0 && sampleRate <= 1)) return false;
    } else if (section.startsWith('#')) {
      const parsed = parseTags(section.slice(1));
      if (parsed === undefined) return false;
      tags = parsed;
    }
    // Other DogStatsD fields (`c:` container id, `T` timestamp, `e:` external data) do not matter for latency.
  }
  const values = sections[0]!.indexOf(':') === -1 ? [sections[0]!] : sections[0]!.split(':');
  const start = out.length;
  for (const text of values) {
    const valueMs = parseNumber(text);
    if (!(valueMs >= 0 && valueMs <= SKETCH_MAX_VALUE_MS)) {
      out.length = start;
      return false;
    }
    out.push({ name, valueMs, sampleRate, tags });
  }
  return true;
}

function parseNumber(text: string): number {
  return NUMBER.test(text) ? Number(text) : NaN;
}

// A service sends the same few tag sets over and over; parsing each once keeps the per-packet cost at a map lookup.
// The cached records are shared between timings, so nothing may mutate a timing's tags.
const MAX_CACHED_TAG_SETS = 1024;
const tagSetCache = new Map<string, Record<string, string> | undefined>();

function parseTags(text: string): Record<string, string> | undefined {
  const cached = tagSetCache.get(text);
  if (cached !== undefined || tagSetCache.has(text)) return cached;
  if (tagSetCache.size >= MAX_CACHED_TAG_SETS) tagSetCache.clear();
  const tags = parseTagsUncached(text);
  tagSetCache.set(text, tags);
  return tags;
}

function parseTagsUncached(text: string): Record<string, string> | undefined {
  const tags = new Map<string, string>();
  for (const tag of text.split(',')) {
    if (tag === '') continue;
    const colon = tag.indexOf(':');
    const key = colon === -1 ? tag : tag.slice(0, colon);
    const value = colon === -1 ? '' : tag.slice(colon + 1);
    if (key === '' || key.length > MAX_TAG_KEY_LENGTH || value.length > MAX_TAG_VALUE_LENGTH) return undefined;
    tags.set(key, value);
    if (tags.size > MAX_STATSD_TAGS) return undefined;
  }
  return Object.fromEntries(tags);
}
