import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { realisticReport, seededRandom } from '../../../bench/_ingest-report';
import { ENV_ALLOW_LIST } from '../../../lib/protocol/env-allow-list';
import { ingestBatchSchema, ingestSchemaFor, type Inventory, parseIngestBody, type Report, reportSchema } from '../../../lib/protocol/report';

// parseIngestBody runs the parser z.compile generates, and zod's runtime parser when that one answers INVALID. These
// tests hold both to the same answers on the ingest schemas, and check that the generated code is really what runs.

const NOW = Date.UTC(2026, 10, 29, 12);
const compiledReport = z.compile(reportSchema);
const compiledBatch = z.compile(ingestBatchSchema);

/** The generated validator z.compile leaves on the clone: INVALID means "ask the runtime", anything else the fast path accepts. */
const fastPathAccepts = (compiled: z.ZodType, value: unknown) => (compiled._zod.bag.validator as (input: unknown) => unknown)(value) !== z.core.INVALID;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

/** Own-property write, so a `__proto__` key stays an ordinary key (as JSON.parse makes it) instead of setting the prototype. */
function put(target: Container, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

// --- Realistic valid inputs --------------------------------------------------------------------------------------

/** An inventory as the agent sends it on start and when something changed: CPU, disks, data paths, cgroup, 2 processes. */
function realisticInventory(seed: number): Inventory {
  const random = seededRandom(seed);
  const cgroup = { path: '/system.slice/inference.service', version: 2 as const, quotaCores: 6, cpusetCpus: '0-7', effectiveCpus: 6 };
  return {
    hash: `sha256:${Math.floor(random() * 2 ** 48).toString(16).padStart(12, '0')}`,
    host: { kernel: '6.8.0-45-generic', memTotalBytes: 67_430_191_104, onlineCpus: 8 },
    cpu: {
      vendor: 'GenuineIntel', model: 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz', sockets: 1, cores: 4, threads: 8, numaNodes: 1,
      flags: ['fpu', 'sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512_vnni'],
      flagsUniform: random() < 0.9, hypervisor: 'kvm', hypervisorVendor: 'KVM', governor: random() < 0.5 ? null : 'performance',
    },
    disks: [
      { device: 'vda', class: 'virtual', model: null, rotational: false, sizeBytes: 107_374_182_400, hwQueues: 4, scheduler: 'none' },
      { device: 'nvme0n1', class: 'nvme', model: 'Amazon EC2 NVMe Instance Storage', rotational: null, sizeBytes: null, hwQueues: null, scheduler: 'mq-deadline' },
    ],
    dataPaths: [
      { path: '/var/lib/models', device: 'nvme0n1', mountPoint: '/var/lib/models', fsType: 'xfs' },
      { path: '/srv/cache', device: null, mountPoint: null, fsType: null },
    ],
    cgroup,
    processes: [
      {
        name: 'triton', pid: 4242, comm: 'tritonserver', threads: 48, cpusAllowedList: '0-7', cpusAllowedCount: 8, cgroup: { ...cgroup },
        container: {
          runtime: 'containerd',
          id: '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26',
          pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'burstable' },
        },
        env: { OMP_NUM_THREADS: String(1 + Math.floor(random() * 8)), MKL_NUM_THREADS: '4', GOMAXPROCS: '8', TF_ENABLE_ONEDNN_OPTS: '0' },
        logWarnings: [{ id: 'omp-oversubscription', line: 'OMP: Warning #181: OMP_NUM_THREADS: Invalid symbols found. Check the value "8,".' }],
      },
      { name: 'tokenizer', pid: 4343, comm: 'python3', threads: 8, cpusAllowedList: '0,2,4,6', cpusAllowedCount: 4, env: {}, envUnreadable: 'permission denied', cgroup: null, logWarnings: [] },
    ],
  };
}

const probes = [
  { name: 'health', target: 'http://127.0.0.1:8000/v2/health/ready', ok: true, connectMs: 0.31, responseMs: 12.5, error: null },
  { name: 'upstream', target: 'tcp://10.0.0.7:5432', ok: false, connectMs: null, responseMs: null, error: 'ECONNREFUSED' },
];

const UNAVAILABLE_SPOTS = ['cpu', 'pressure', 'disks', 'cgroups', 'pressure.io', 'pressure.memory', 'inventory.cpu', 'inventory.disks', 'inventory.cgroup'] as const;
const reportVariantArb = fc.record({
  seq: fc.integer({ min: 0, max: 1_000_000 }),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  inventory: fc.boolean(),
  unavailable: fc.subarray([...UNAVAILABLE_SPOTS], { maxLength: 4 }),
  probes: fc.boolean(),
  nulls: fc.boolean(),
  manyTags: fc.boolean(),
});
// These cases write anywhere in a report, on purpose outside its type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type LooseReport = Record<string, any>;

type ReportVariant = typeof reportVariantArb extends fc.Arbitrary<infer T> ? T : never;

function buildReport(variant: ReportVariant): Report {
  const report = realisticReport(variant.seq, NOW - variant.seq, variant.seed) as unknown as LooseReport;
  if (variant.inventory) report.inventory = realisticInventory(variant.seed);
  if (variant.probes) report.probes = probes.map((p) => ({ ...p }));
  if (variant.nulls) {
    report.host.machineId = 'f3c1e0a2b4d94c7e9a1b2c3d4e5f6a7b';
    report.pressure.cpu.full = null;
    Object.assign(report.cgroups[0], { quotaCores: null, cpusetCpus: null });
  }
  // The refine allows at most 16 tags: sit right on the limit.
  if (variant.manyTags) report.latency[0].tags = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`tag${i}`, `value-${i}`]));
  for (const spot of variant.unavailable) {
    const [head, tail] = spot.split('.') as [string, string | undefined];
    if (tail === undefined) report[head] = { unavailable: `${head} collector failed` };
    else if (report[head] && !('unavailable' in report[head])) report[head][tail] = { unavailable: `no ${tail}` };
  }
  return jsonCopy(report) as Report;
}

// Building a report costs more than parsing it; the properties draw from a fixed, varied pool instead.
const POOL = fc.sample(reportVariantArb, { numRuns: 48, seed: 20_261_129 }).map(buildReport);
const pooledReportArb = fc.nat({ max: POOL.length - 1 }).map((i) => POOL[i]!);
const pooledBatchArb = fc.array(pooledReportArb, { minLength: 1, maxLength: 3 }).map((reports) => ({ reports }));

// --- Mutations ---------------------------------------------------------------------------------------------------

// JSON.parse turns -0, 1e400 and -1e400 into -0, Infinity and -Infinity: the ingest route can see those too.
const SPECIALS: Json[] = [
  null, -1, 0, -0, Infinity, -Infinity, 1, 2, 101, 100.5, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, 3_600_001, 32_768, -32_769, 4097,
  '', 'x', '5', '😀', '\uD83D', '😀'.repeat(101), 'x'.repeat(101), 'x'.repeat(129), 'x'.repeat(201), 'x'.repeat(254), 'x'.repeat(300), 'x'.repeat(501), 'x'.repeat(1001),
  true, false, [], {}, [1], { a: 1 }, { unavailable: 'x' }, { unavailable: '' },
];
const EXTRA_KEYS = ['extra', 'unavailable', 'constructor', 'toString', 'hasOwnProperty', 'PATH', 'OMP_NUM_THREADS', 'tag', '', 'v', 'cpu'];

/** `shape` is the path with array indices as `*`: every per-CPU row has the same shape. */
type Node = { parent: Container | null; key: string | number; value: Json; shape: string };

function nodesOf(root: Json): Node[] {
  const out: Node[] = [];
  const visit = (parent: Container | null, key: string | number, value: Json, shape: string) => {
    out.push({ parent, key, value, shape });
    if (Array.isArray(value)) for (let i = 0, each = `${shape}.*`; i < value.length; i++) visit(value, i, value[i]!, each);
    else if (typeof value === 'object' && value !== null) for (const k of Object.keys(value)) visit(value, k, value[k]!, `${shape}.${k}`);
  };
  visit(null, '', root, '');
  return out;
}

const isContainer = (value: Json): value is Container => typeof value === 'object' && value !== null;
const isPlainObject = (value: Json): value is { [key: string]: Json } => isContainer(value) && !Array.isArray(value);

// 'set' (any field to a special value) is listed thrice to weigh it up: it is the one that reaches every field.
const MUTATIONS = ['delete', 'addKey', 'set', 'set', 'set', 'unavailable', 'addUnavailable', 'duplicate', 'proto', 'transplant', 'sketch', 'tags', 'env'] as const;
type Mutation = { kind: (typeof MUTATIONS)[number]; at: number; nth: number; pick: number; special: number };
const mutationArb: fc.Arbitrary<Mutation> = fc.record({ kind: fc.constantFrom(...MUTATIONS), at: fc.nat(), nth: fc.nat(), pick: fc.nat(), special: fc.nat({ max: SPECIALS.length - 1 }) });

type Sketch = { keys: Json[]; counts: Json[]; count: number; zeroCount: number; min: Json; max: Json };
const SKETCH_EDITS: ((s: Sketch, i: number, pick: number) => void)[] = [
  (s, i) => { if (i > 0) [s.keys[i - 1], s.keys[i]] = [s.keys[i]!, s.keys[i - 1]!]; }, // not increasing
  (s, i) => { if (i > 0) s.keys[i] = s.keys[i - 1]!; }, // repeated key
  (s, _, pick) => { s.count += pick % 2 ? 1 : -1; },
  (s, i) => { s.counts[i] = 0; },
  (s) => { s.counts.pop(); },
  (s, i, pick) => { s.keys[i] = pick % 2 ? 32_768 : 1.5; },
  (s) => { [s.min, s.max] = [s.max, s.min]; },
  (s) => { s.zeroCount++; s.count++; }, // still consistent
  (s) => { s.keys = Array.from({ length: 4097 }, (_, k) => k - 2000); s.counts = s.keys.map(() => 1); s.zeroCount = 0; s.count = 4097; },
];
const TAG_EDITS: ((tags: Container, pick: number) => void)[] = [
  (tags, pick) => { for (let k = 0; k < 10 + (pick % 10); k++) put(tags, `t${k}`, `v${k}`); }, // 10..19 more: often > 16
  (tags) => put(tags, '', 'empty key'),
  (tags) => put(tags, 'k'.repeat(101), 'long key'),
  (tags) => put(tags, 'model', 'v'.repeat(201)),
  (tags, pick) => put(tags, 'n', pick % 2 ? 5 : null),
];
const envKey = (pick: number) => ENV_ALLOW_LIST[pick % ENV_ALLOW_LIST.length]!;
const ENV_EDITS: ((env: Container, pick: number) => void)[] = [
  (env, pick) => put(env, pick % 2 ? 'PATH' : 'AWS_SECRET_ACCESS_KEY', '/usr/bin'),
  (env, pick) => put(env, envKey(pick), 'v'.repeat(1001)),
  (env, pick) => put(env, envKey(pick), pick % 2 ? 4 : null),
  (env) => put(env, 'omp_num_threads', '4'),
  (env, pick) => put(env, envKey(pick), String(pick % 64)), // still valid
];

/** Applies one mutation in place where it can; returns the (possibly new) root. A mutation with no target is a no-op. */
function mutate(root: Json, m: Mutation): Json {
  const nodes = nodesOf(root);
  // A target shape first (so the 240 sketch keys do not crowd out `seq`), then one node of that shape.
  const choose = (where: (n: Node) => boolean): Node | undefined => {
    const items = nodes.filter(where);
    const shapes = [...new Set(items.map((n) => n.shape))];
    const same = items.filter((n) => n.shape === shapes[m.at % shapes.length]);
    return same[m.nth % same.length];
  };
  const special = () => structuredClone(SPECIALS[m.special]!);
  const replace = (node: Node | undefined, value: Json): Json => (node?.parent ? (put(node.parent, node.key, value), root) : node ? value : root);
  const edit = <C extends Container>(where: (n: Node) => boolean, change: (c: C) => void): Json => {
    const c = choose(where)?.value as C | undefined;
    if (c) change(c);
    return root;
  };

  switch (m.kind) {
    case 'delete':
      return edit((n) => isContainer(n.value) && Object.keys(n.value).length > 0, (c) => {
        if (Array.isArray(c)) c.splice(m.pick % c.length, 1);
        else delete c[Object.keys(c)[m.pick % Object.keys(c).length]!];
      });
    case 'addKey':
      return edit((n) => isContainer(n.value), (c) => (Array.isArray(c) ? c.push(special()) : put(c, EXTRA_KEYS[m.pick % EXTRA_KEYS.length]!, special())));
    case 'set':
      return replace(choose((n) => n.parent !== null), special());
    case 'unavailable':
      return replace(choose((n) => n.parent !== null && isContainer(n.value)), { unavailable: m.pick % 3 === 0 ? '' : 'x' });
    case 'addUnavailable':
      return edit((n) => isPlainObject(n.value) && !('unavailable' in n.value), (c) => put(c, 'unavailable', m.pick % 2 ? 'x' : 'y'.repeat(501)));
    case 'duplicate':
      return edit<Json[]>((n) => Array.isArray(n.value) && n.value.length > 0, (a) => a.splice(m.pick % a.length, 0, structuredClone(a[m.pick % a.length]!)));
    case 'proto': {
      // JSON.parse makes `__proto__` an ordinary own key; both parsers must drop it, in an object and in a record.
      const node = choose((n) => isPlainObject(n.value));
      const body = JSON.stringify(node?.value ?? {});
      return replace(node, JSON.parse(`{"__proto__":${JSON.stringify(special())}${body === '{}' ? '}' : `,${body.slice(1)}`}`) as Json);
    }
    case 'transplant': {
      // Puts one part of the report where another belongs: e.g. a cgroup sample (a superset) where a cgroup config goes.
      const containers = nodes.filter((n) => isContainer(n.value));
      return replace(choose((n) => n.parent !== null), structuredClone(containers[m.pick % containers.length]!.value));
    }
    case 'sketch':
      return edit((n) => isPlainObject(n.value) && Array.isArray(n.value.keys) && Array.isArray(n.value.counts), (c) => {
        const s = c as unknown as Sketch;
        SKETCH_EDITS[m.special % SKETCH_EDITS.length]!(s, s.keys.length ? m.pick % s.keys.length : 0, m.pick);
      });
    case 'tags':
    case 'env': {
      const edits = m.kind === 'tags' ? TAG_EDITS : ENV_EDITS;
      return edit((n) => n.key === m.kind && isPlainObject(n.value), (c) => edits[m.special % edits.length]!(c, m.pick));
    }
  }
}

/** What the ingest route sees: the mutations only write values JSON.parse can make, as own properties, into a JSON copy. */
function mutated(base: Json, mutations: Mutation[]): Json {
  let root = jsonCopy(base);
  for (const m of mutations) root = mutate(root, m);
  return root;
}

// --- Agreement ---------------------------------------------------------------------------------------------------

type Outcome = 'unchanged' | 'stripped' | 'rejected';
const issuesOf = (error: z.ZodError) => error.issues.map(({ path, message, code }) => ({ path, message, code }));

/** Equal, prototypes and all. node's check first, as vitest's is slow on whole reports; vitest's for the diff. */
function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toStrictEqual(expected);
}

/** parseIngestBody gives the runtime parser's answer: the same reports, or a ZodError with the same issues. */
function expectIngestAgrees(body: unknown, known: { schema: z.ZodType; result: z.ZodSafeParseResult<unknown> }): void {
  const schema = ingestSchemaFor(body);
  const result = known.schema === schema ? known.result : schema.safeParse(body);
  if (result.success) return expectSame(parseIngestBody(body), schema === ingestBatchSchema ? (result.data as { reports: Report[] }).reports : [result.data]);
  let thrown: unknown;
  try {
    parseIngestBody(body);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(z.ZodError);
  expectSame(issuesOf(thrown as z.ZodError), issuesOf(result.error));
}

/** The compiled clone agrees with the runtime schema on `value`, and its generated code accepts exactly what the runtime accepts. */
function expectAgreement(schema: z.ZodType, compiled: z.ZodType, value: unknown): Outcome {
  const runtime = schema.safeParse(value);
  const fast = compiled.safeParse(value);
  expect(fast.success).toBe(runtime.success);
  if (runtime.success) expectSame(fast.data, runtime.data);
  else expectSame(issuesOf(fast.error!), issuesOf(runtime.error));
  expect(fastPathAccepts(compiled, value), 'the generated validator and the runtime parser disagree').toBe(runtime.success);
  expectIngestAgrees(value, { schema, result: runtime });
  if (!runtime.success) return 'rejected';
  return isDeepStrictEqual(runtime.data, value) ? 'unchanged' : 'stripped';
}

// --- Tests -------------------------------------------------------------------------------------------------------

describe('z.compile on the ingest schemas', () => {
  test('both schemas compile in strict mode (an uncompilable one would silently lose the ingest fast path)', () => {
    expect(() => z.compile(reportSchema, { strict: true })).not.toThrow();
    expect(() => z.compile(ingestBatchSchema, { strict: true })).not.toThrow();
  });

  test.each([
    ['reportSchema', reportSchema, compiledReport, POOL[0]],
    ['ingestBatchSchema', ingestBatchSchema, compiledBatch, { reports: POOL.slice(0, 3) }],
  ] as const)('the compiled %s is a clone with generated code in front of the runtime parser', (_, schema, compiled, valid) => {
    expect(compiled).not.toBe(schema); // what z.compile returns for a schema it cannot model
    expect(compiled._zod.bag.fallbackRun).toBe(schema._zod.run);
    expect((compiled._zod.run as { __originalRun?: unknown }).__originalRun).toBe(schema._zod.run);
    expect(fastPathAccepts(compiled, valid)).toBe(true);
    expect(fastPathAccepts(compiled, { ...valid, v: 2, reports: [] })).toBe(false);
  });

  test('parseIngestBody accepts valid bodies without the runtime parser, and falls back to it for an invalid one', () => {
    // Every runtime parse of a report runs the parser of its host field; the generated code checks that field inline.
    const host = reportSchema.shape.host._zod;
    const run = host.run;
    let runtimeRuns = 0;
    host.run = (payload, ctx) => (runtimeRuns++, run(payload, ctx));
    try {
      reportSchema.parse(POOL[0]);
      expect(runtimeRuns).toBe(1); // the spy sees runtime parses
      expect(parseIngestBody(POOL[1])).toStrictEqual([POOL[1]]);
      expect(parseIngestBody({ reports: POOL.slice(2, 5) })).toStrictEqual(POOL.slice(2, 5));
      expect(runtimeRuns).toBe(1);
      expect(() => parseIngestBody({ ...POOL[1], seq: -1 })).toThrow(z.ZodError);
      expect(runtimeRuns).toBe(2);
    } finally {
      host.run = run;
    }
  });
});

describe('compiled and runtime parsers agree on mutated input', () => {
  test.each([
    ['reports', reportSchema, compiledReport, pooledReportArb, 2000],
    ['batches', ingestBatchSchema, compiledBatch, pooledBatchArb, 500],
  ] as const)('mutated %s', { timeout: 30_000 }, (_, schema, compiled, arb: fc.Arbitrary<unknown>, numRuns) => {
    const outcomes: Record<Outcome, number> = { unchanged: 0, stripped: 0, rejected: 0 };
    fc.assert(
      fc.property(arb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (base, mutations) => {
        outcomes[expectAgreement(schema, compiled, mutated(base as Json, mutations))]++;
      }),
      { numRuns },
    );
    // Not vacuous: plenty of mutations keep the input valid (e.g. 1.5 for a rate) and plenty break or change it.
    expect(outcomes.unchanged).toBeGreaterThan(numRuns / 40);
    expect(outcomes.stripped).toBeGreaterThan(numRuns / 40);
    expect(outcomes.rejected).toBeGreaterThan(numRuns / 2);
  });
});

// --- Concrete cases ----------------------------------------------------------------------------------------------

type Patch = (r: LooseReport) => void;
const withInventory: Patch = (r) => void (r.inventory = realisticInventory(7));
const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const baseReport = (inventory = false) => buildReport({ seq: 5, seed: 42, inventory, unavailable: [], probes: true, nulls: false, manyTags: false });

describe('parseIngestBody: concrete cases', () => {
  test.each<[string, Outcome, Patch]>([
    ['the realistic report', 'unchanged', () => {}],
    ['with an inventory', 'unchanged', withInventory],
    ['seq = MAX_SAFE_INTEGER, intervalMs = 1 h exactly', 'unchanged', (r) => Object.assign(r, { seq: Number.MAX_SAFE_INTEGER, intervalMs: 3_600_000 })],
    ['cpu and one PSI resource unavailable, "full" null', 'unchanged', (r) => { r.cpu = { unavailable: 'x' }; r.pressure.io = { unavailable: 'x' }; r.pressure.cpu.full = null; }],
    ['16 tags', 'unchanged', (r) => { r.latency[0].tags = tags(16); }],
    ['a hostname of 253 code points (254 UTF-16 units)', 'unchanged', (r) => { r.host.hostname = `${'h'.repeat(252)}😀`; }],
    ['every inventory collector unavailable, envUnreadable absent', 'unchanged', (r) => {
      r.inventory = { ...realisticInventory(7), cpu: { unavailable: 'x' }, disks: { unavailable: 'x' }, cgroup: { unavailable: 'x' } };
      delete r.inventory.processes[1].envUnreadable;
    }],
    ['a container with no runtime named and no pod (an older agent sends no container at all)', 'unchanged', (r) => {
      withInventory(r);
      r.inventory.processes[0].container = { runtime: null, id: 'b'.repeat(64) };
      delete r.inventory.processes[1].container;
    }],
    ['v: "1"', 'rejected', (r) => { r.v = '1'; }],
    ['a percentage of 100.5', 'rejected', (r) => { r.cpu.perCpu[3].idlePct = 100.5; }],
    ['a fractional count', 'rejected', (r) => { r.cpu.procsRunning = 2.5; }],
    ['seq beyond MAX_SAFE_INTEGER, intervalMs above 1 h', 'rejected', (r) => Object.assign(r, { seq: 2 ** 53, intervalMs: 3_600_001 })],
    ['a missing key', 'rejected', (r) => { delete r.agent.spoolBytes; }],
    ['a hostname of 254 characters', 'rejected', (r) => { r.host.hostname = 'h'.repeat(254); }],
    ['an empty unavailable reason', 'rejected', (r) => { r.cpu = { unavailable: '' }; }],
    ['17 tags', 'rejected', (r) => { r.latency[0].tags = tags(17); }],
    ['a sketch count that does not add up', 'rejected', (r) => { r.latency[0].sketch.count += 1; }],
    ['sketch keys not increasing', 'rejected', (r) => { const k = r.latency[2].sketch.keys; [k[0], k[1]] = [k[1], k[0]]; }],
    ['an env var not on the allow-list', 'rejected', (r) => { withInventory(r); r.inventory.processes[0].env.LD_PRELOAD = '/tmp/x.so'; }],
    ['a disk class off the enum', 'rejected', (r) => { withInventory(r); r.inventory.disks[0].class = 'tape'; }],
    ['a container id that is not 64 lower-case hex digits', 'rejected', (r) => { withInventory(r); r.inventory.processes[0].container.id = '<b>9c1b</b>'; }],
    ['a container runtime off the enum', 'rejected', (r) => { withInventory(r); r.inventory.processes[0].container.runtime = 'lxc'; }],
    ['a pod QoS class off the enum', 'rejected', (r) => { withInventory(r); r.inventory.processes[0].container.pod.qosClass = 'Guaranteed'; }],
    ['an array where an object goes', 'rejected', (r) => { r.host = []; }],
    ['an unknown top-level key', 'stripped', (r) => { r.extra = 1; }],
    ['an unknown key in a sketch', 'stripped', (r) => { r.latency[0].sketch.p99 = 42; }],
    ['unavailable next to the real cpu fields (the first union option wins)', 'stripped', (r) => { r.cpu.unavailable = 'x'; }],
    ['a cgroup sample where the inventory expects a cgroup config', 'stripped', (r) => { withInventory(r); r.inventory.cgroup = r.cgroups[0]; }],
    ['an unavailable object with an extra key', 'stripped', (r) => { r.cpu = { unavailable: 'x', since: 1 }; }],
  ])('%s: %s', (_, outcome, patch) => {
    const report = baseReport() as unknown as LooseReport;
    patch(report);
    const body = jsonCopy(report);
    expect(expectAgreement(reportSchema, compiledReport, body)).toBe(outcome);
    expect(expectAgreement(ingestBatchSchema, compiledBatch, { reports: [POOL[0], body] })).toBe(outcome);
  });

  test('an own __proto__ key (as JSON.parse makes it) is dropped alike, in an object and in a record', () => {
    const body = JSON.stringify(baseReport(true));
    for (const text of [
      body.replace('{', '{"__proto__":{"v":1},'),
      body.replace('"tags":{', '"tags":{"__proto__":"x",'),
      body.replace('"env":{', '"env":{"__proto__":{},'),
    ]) {
      expect(text).not.toBe(body);
      expect(expectAgreement(reportSchema, compiledReport, JSON.parse(text))).toBe('stripped');
    }
  });
});
