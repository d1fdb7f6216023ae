import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expect } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import type { Report } from '../../lib/protocol';
import { cleanInventory } from './findings-facts';
import { makeReport } from './report-factory';

/**
 * Random mutations of valid ingest requests, for property-based tests of what ingest answers an untrusted agent:
 * wrong types, extreme numbers, long and control-character strings, deep nesting, unknown and prototype-named
 * fields, duplicated array entries and seqs, and bodies that are truncated, corrupt or mislabelled gzip.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const templates = new Map<number, Report>();

/** The valid reports mutations start from: the factory's plain one, and a realistic one with every optional part. */
export function baseReport(kind: number, seq: number, ts: number): Report {
  let template = templates.get(kind);
  if (!template) {
    template = kind === 0 ? makeReport({ seq: 0 }) : {
      ...realisticReport(0, 0),
      probes: [{ name: 'oslo-users', target: 'https://oslo.example', ok: true, connectMs: 3.2, responseMs: 9.5, error: null }],
      servers: [{ name: 'vllm', ok: true, error: null, requestsPerS: 12.5, latencyMeanMs: 80, queueMeanMs: 4, waiting: 2, running: 8, batchSize: 8, droppedSeries: 0 }],
      inventory: cleanInventory({ hash: 'fuzz' }),
    };
    templates.set(kind, template);
  }
  const report = structuredClone(template);
  if (report.inventory) report.inventory.hash = `fuzz-${seq}`;
  return { ...report, seq, ts };
}

const NASTY_NUMBERS = [
  -1, -0, 0.5, 1e-320, 32_767, 32_768, -32_769, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 1e21, 3.5e38, 1e39,
  1e308, -1e308, Number.MAX_VALUE, 4096, 4097, 1001, 8.64e15, 8.64e15 + 1,
];
const NASTY_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\u0007\u001b[31m', '\r\n', '\ud800', '\udfff\ud800', '\u202e', '\ufeff', '😀'.repeat(60), 'NaN', 'Infinity',
  '-Infinity', '1e999', '0x1f', ' 1', '__proto__', 'constructor', 'toString', "'; DROP TABLE hosts; --", '%s%n', '../../etc/passwd',
  '<script>alert(1)</script>', '\\', '"', '{}', 'null', '[]',
];

// JSON.stringify recurses, so deep nesting is written into the JSON text in place of this marker.
const DEEP = (depth: number, kind: 'a' | 'o') => `\u0001deep:${depth}:${kind}\u0001`;
const DEEP_IN_JSON = /"\\u0001deep:(\d+):([ao])\\u0001"/g;

const controlChars = fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c));

const stringArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 12 },
  { arbitrary: fc.string(), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 300 }), weight: 6 },
  { arbitrary: fc.string({ unit: controlChars, minLength: 1, maxLength: 20 }), weight: 3 },
  { arbitrary: fc.integer({ min: 60, max: 20_000 }).map((n) => 'é'.repeat(n)), weight: 3 },
  // Past the 1 MiB body limit, uncompressed; rare, since each costs milliseconds to build and to refuse.
  { arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
);

const numberArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_NUMBERS), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.maxSafeInteger(), weight: 1 },
  // NaN and ±Infinity become null in JSON, as they would from a JavaScript agent.
  { arbitrary: fc.double(), weight: 2 },
);

const valueArb: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: numberArb, weight: 5 },
  { arbitrary: stringArb, weight: 5 },
  { arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], { unavailable: '' }, { unavailable: 'x' }), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>, weight: 2 },
  { arbitrary: fc.tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('a' as const, 'o' as const)).map(([d, k]) => DEEP(d, k)), weight: 1 },
);

const keyArb = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'unknown', '', 'v', 'seq', '\u0000'), fc.string());

type Mutation =
  | { op: 'set'; at: number; value: Json }
  | { op: 'same-type'; at: number; number: number; string: string }
  | { op: 'delete'; at: number }
  | { op: 'add'; at: number; key: string; value: Json }
  | { op: 'duplicate'; at: number; times: number }
  | { op: 'nudge'; at: number; by: number }
  | { op: 'wrap'; at: number; inArray: boolean };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: valueArb }), weight: 6 },
  // A value of the right type, so the report often gets past the schema to the checks and the writer behind it.
  { arbitrary: fc.record({ op: fc.constant('same-type' as const), at: fc.nat(), number: numberArb, string: stringArb }), weight: 8 },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), at: fc.nat(), key: keyArb, value: valueArb }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), times: fc.constantFrom(1, 2, 5000) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('nudge' as const), at: fc.nat(), by: fc.constantFrom(1, -1, 0.5, 1e6, 2 ** 31, -1e300) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('wrap' as const), at: fc.nat(), inArray: fc.boolean() }), weight: 1 },
);

/** Every path in `value`, grouped by field: the path with its array indices as `*`. */
function fieldPaths(value: Json, path: Path, field: string, out: Map<string, Path[]>): Map<string, Path[]> {
  const group = out.get(field);
  if (group) group.push(path);
  else out.set(field, [path]);
  if (Array.isArray(value)) value.forEach((item, i) => fieldPaths(item, [...path, i], `${field}.*`, out));
  else if (value !== null && typeof value === 'object') for (const key of Object.keys(value)) fieldPaths(value[key]!, [...path, key], `${field}.${key}`, out);
  return out;
}

function parentOf(root: Json, path: Path): Json {
  return path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, root);
}

const setOwn = (node: Json, key: string | number, value: Json) =>
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });

/** `mutation` applied to `root` (mutated in place), or the new root when it replaces the whole value. */
function applyMutation(root: Json, mutation: Mutation): Json {
  // Each field alike, whatever its array's length: a sketch's hundred buckets would otherwise take most mutations.
  const fields = fieldPaths(root, [], '', new Map());
  const groups = [...fields.values()];
  const group = groups[mutation.at % groups.length]!;
  const path = group[Math.floor(mutation.at / groups.length) % group.length]!;
  const node = path.reduce<Json>((n, key) => (n as Record<string | number, Json>)[key]!, root);
  const replace = (value: Json): Json => {
    if (path.length === 0) return value;
    setOwn(parentOf(root, path), path.at(-1)!, value);
    return root;
  };
  switch (mutation.op) {
    // Cloned: fast-check hands out the same constant ({}, []) again, and a later mutation would change it everywhere.
    case 'set':
      return replace(structuredClone(mutation.value));
    case 'same-type':
      if (typeof node === 'number') return replace(mutation.number);
      return typeof node === 'string' ? replace(mutation.string) : root;
    case 'delete': {
      if (path.length === 0) return root;
      const parent = parentOf(root, path);
      if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
      else delete (parent as Record<string, Json>)[path.at(-1)!];
      return root;
    }
    case 'add':
      // defineProperty, not assignment: a key named __proto__ becomes a field, as JSON.parse makes it.
      if (node !== null && typeof node === 'object' && !Array.isArray(node)) setOwn(node, mutation.key, structuredClone(mutation.value));
      return root;
    case 'duplicate': {
      if (!Array.isArray(node) || node.length === 0) return root;
      // Thousands of copies of a small entry pass an array's bound; of a megabyte string, only the test's memory.
      const times = JSON.stringify(node[0]).length * mutation.times > 4_000_000 ? 1 : mutation.times;
      for (let i = 0; i < times; i++) node.push(structuredClone(node[0]!));
      return root;
    }
    case 'nudge':
      return typeof node === 'number' ? replace(mutation.by === -1 ? -node : node + mutation.by) : root;
    case 'wrap':
      return replace(mutation.inArray ? [node] : { value: node });
  }
}

type TextMutation = { kind: 'truncate'; at: number } | { kind: 'insert'; at: number; text: string } | { kind: 'append'; text: string };

const textMutationArb: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom('NaN', 'Infinity', '-', '1e999', '\u0000', '"', ',', '}', ']', '\\', '\\u0000', '\\ud800', 'ÿ', '\n', '"__proto__":1,'),
  }),
  fc.record({ kind: fc.constant('append' as const), text: fc.constantFrom(' ', 'x', '}', '\u0000', '\n{}') }),
);

function mutateText(text: string, mutation: TextMutation): string {
  switch (mutation.kind) {
    case 'truncate':
      return text.slice(0, mutation.at % (text.length + 1));
    case 'insert': {
      const at = mutation.at % (text.length + 1);
      return text.slice(0, at) + mutation.text + text.slice(at);
    }
    case 'append':
      return text + mutation.text;
  }
}

const ENCODINGS = ['gzip', 'identity', 'truncated-gzip', 'corrupt-gzip', 'gzip-said-identity', 'plain-said-gzip', 'random-bytes', 'odd-header'] as const;
type Encoding = (typeof ENCODINGS)[number];

export interface RequestPlan {
  reports: { base: number; seqOffset: number; mutations: Mutation[] }[];
  batch: boolean;
  text: TextMutation | null;
  encoding: Encoding;
  cut: number;
  oddHeader: string;
  randomBytes: Uint8Array;
}

export const requestPlanArb: fc.Arbitrary<RequestPlan> = fc.record({
  reports: fc.array(
    fc.record({
      base: fc.nat(1),
      // Mostly distinct, sometimes the same seq twice in one request.
      seqOffset: fc.oneof({ arbitrary: fc.constant(-1), weight: 9 }, { arbitrary: fc.nat(2), weight: 1 }),
      // Often one change: a report with several is refused for the first, and never reaches the checks behind it.
      mutations: fc.oneof({ arbitrary: fc.array(mutationArb, { minLength: 0, maxLength: 1 }), weight: 3 }, { arbitrary: fc.array(mutationArb, { maxLength: 4 }), weight: 1 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  batch: fc.boolean(),
  text: fc.option(textMutationArb, { freq: 10 }),
  encoding: fc.oneof({ arbitrary: fc.constantFrom<Encoding>('gzip', 'identity'), weight: 6 }, { arbitrary: fc.constantFrom(...ENCODINGS), weight: 3 }),
  cut: fc.nat(),
  oddHeader: fc.constantFrom('GZIP', ' gzip ', 'x-gzip', 'br', 'deflate', 'gzip, gzip', '', 'identity, gzip'),
  randomBytes: fc.uint8Array({ maxLength: 200 }),
});

/**
 * Requests that mostly pass the schema: each report changed at most once, by a value of the field's own type, sent
 * as plain gzip. They reach the semantic checks and the writer, where a value a column cannot hold shows.
 */
export const nearValidPlanArb: fc.Arbitrary<RequestPlan> = fc.record({
  reports: fc.array(
    fc.record({
      base: fc.nat(1),
      seqOffset: fc.constant(-1),
      mutations: fc.array(
        fc.oneof(
          fc.record({ op: fc.constant('same-type' as const), at: fc.nat(), number: numberArb, string: stringArb }),
          fc.record({ op: fc.constant('nudge' as const), at: fc.nat(), by: fc.constantFrom(1, -1, 0.5, 1e6, 2 ** 31, 1e18) }),
        ),
        { maxLength: 1 },
      ),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  batch: fc.boolean(),
  text: fc.constant(null),
  encoding: fc.constant('gzip' as const),
  cut: fc.constant(0),
  oddHeader: fc.constant(''),
  randomBytes: fc.constant(new Uint8Array()),
});

export interface FuzzRequest {
  body: Buffer;
  contentEncoding: string | null;
  /** The seqs the request's reports would have, unmutated. */
  seqs: number[];
}

/** The request `plan` describes, its reports' seqs counting up from `firstSeq` and their ts from `firstTs` (1 s apart). */
export function buildRequest(plan: RequestPlan, firstSeq: number, firstTs: number): FuzzRequest {
  const seqs = plan.reports.map((r, i) => firstSeq + (r.seqOffset >= 0 ? r.seqOffset : i));
  const reports = plan.reports.map((r, i) => {
    const report = baseReport(r.base, seqs[i]!, firstTs + (seqs[i]! - firstSeq) * 1000) as unknown as Json;
    return r.mutations.reduce(applyMutation, report);
  });
  let text = JSON.stringify(plan.batch || reports.length > 1 ? { reports } : reports[0]!);
  text = text.replace(DEEP_IN_JSON, (_, depth: string, kind: string) => {
    const d = Number(depth);
    return kind === 'a' ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d);
  });
  if (plan.text) text = mutateText(text, plan.text);
  const raw = Buffer.from(text);
  switch (plan.encoding) {
    case 'gzip':
      return { body: gzipSync(raw), contentEncoding: 'gzip', seqs };
    case 'identity':
      return { body: raw, contentEncoding: null, seqs };
    case 'truncated-gzip': {
      const gz = gzipSync(raw);
      return { body: gz.subarray(0, plan.cut % gz.length), contentEncoding: 'gzip', seqs };
    }
    case 'corrupt-gzip': {
      const gz = Buffer.from(gzipSync(raw));
      const at = plan.cut % gz.length;
      gz[at] = gz[at]! ^ 0x5a;
      return { body: gz, contentEncoding: 'gzip', seqs };
    }
    case 'gzip-said-identity':
      return { body: gzipSync(raw), contentEncoding: 'identity', seqs };
    case 'plain-said-gzip':
      return { body: raw, contentEncoding: 'gzip', seqs };
    case 'random-bytes':
      return { body: Buffer.from(plan.randomBytes), contentEncoding: plan.cut % 2 ? 'gzip' : null, seqs };
    case 'odd-header':
      return { body: gzipSync(raw), contentEncoding: plan.oddHeader, seqs };
  }
}

const ANSWERS = [200, 400, 409, 413, 415, 429];

/** What every ingest answer must be: one of the expected statuses, with the success body or the error envelope. */
export function expectIngestAnswer(out: { status: number; body: unknown }, request: FuzzRequest): void {
  expect(ANSWERS, JSON.stringify(out.body)).toContain(out.status);
  const body = JSON.parse(JSON.stringify(out.body)) as unknown;
  if (out.status === 200) {
    expect(body).toEqual({ accepted: expect.any(Number), duplicate: expect.any(Number), acknowledgedSeqs: expect.any(Array) });
    return;
  }
  expect(body).toEqual({ error: { code: expect.any(String), message: expect.any(String), ...(hasDetails(body) ? { details: expect.any(Array) } : {}) } });
  for (const detail of (body as { error: { details?: unknown[] } }).error.details ?? []) expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
  if (out.status === 415) expect(['gzip', 'x-gzip', 'identity', '', null]).not.toContain(request.contentEncoding?.trim().toLowerCase() ?? null);
}

const hasDetails = (body: unknown) => typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'object' && body.error !== null && 'details' in body.error;
