import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createReportSources } from '../../../../agent/collectors';
import type { CollectorContext } from '../../../../agent/collectors/types';
import { silentLogger } from '../../../../agent/log';
import { withHash } from '../../../../agent/report-builder';
import { checkReports } from '../../../../lib/ingest/validate/validate-reports';
import { inventorySchema, processInventorySchema, reportSchema, type Report } from '../../../../lib/protocol';

export const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures');

export interface Roots {
  procRoot: string;
  sysRoot: string;
}

/** Two readings of a host (the same tree twice where only one was captured) and what the agent watches there. */
export interface TreePair {
  name: string;
  before: Roots;
  after: Roots;
  watchProcesses: string[];
  watchPids: number[];
  watchLogs: string[];
  dataPaths: string[];
}

const roots = (tree: string, sysTree = tree): Roots => ({ procRoot: path.join(tree, 'proc'), sysRoot: path.join(sysTree, 'sys') });

export type FixturePair = TreePair & { /** The fixture folders the pair reads. */ trees: string[] };

const single = (name: string, watchPids: number[] = []): FixturePair => ({
  name,
  trees: [name],
  before: roots(name),
  after: roots(name),
  watchProcesses: [],
  watchPids,
  watchLogs: [],
  dataPaths: [],
});

/** The captured and hand-made trees, with paths relative to a fixtures folder. */
export const TREE_PAIRS: FixturePair[] = [
  {
    name: 'golden',
    trees: ['golden'],
    before: roots('golden/before'),
    after: roots('golden/after'),
    watchProcesses: ['sleep'],
    watchPids: [],
    watchLogs: ['golden/handmade-inference.log'],
    dataPaths: ['/tmp'],
  },
  { ...single('debian-kvm'), trees: ['debian-kvm', 'debian-kvm-1s-later'], after: roots('debian-kvm-1s-later', 'debian-kvm'), dataPaths: ['/'] },
  single('inventory-firecracker-v1', [14245]),
  single('inventory-cgroup-v1-handmade', [4242]),
  single('inventory-cgroup-v2-handmade', [777]),
  single('inventory-baremetal-handmade'),
  single('inventory-vmware-mixed-flags-handmade'),
  single('handmade/mixed-disks'),
];

/** The pair with every path under `base` (a fixtures folder or a writable copy of it). */
export function pairUnder(base: string, pair: FixturePair): TreePair {
  const under = (r: Roots): Roots => ({ procRoot: path.join(base, r.procRoot), sysRoot: path.join(base, r.sysRoot) });
  return { ...pair, before: under(pair.before), after: under(pair.after), watchLogs: pair.watchLogs.map((f) => path.join(base, f)) };
}

/** A writable copy of the fixtures (symlinks kept relative, so they point inside the copy). */
export async function copyFixtures(): Promise<{ base: string; cleanup: () => Promise<void> }> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'inferwatch-odd-files-'));
  await cp(FIXTURES, base, { recursive: true, verbatimSymlinks: true });
  return { base, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Every regular file under `dir` (what the collectors read: the trees hold only captured files). */
export async function regularFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !/(README|\.py|\.sh|\.json)$/.test(file))
    .sort();
}

export interface Sections {
  cpu: Report['cpu'];
  pressure: Report['pressure'];
  disks: Report['disks'];
  cgroups: Report['cgroups'];
  processes: Report['processes'];
  inventory: {
    host: z.infer<typeof inventorySchema.shape.host>;
    cpu: z.infer<typeof inventorySchema.shape.cpu>;
    disks: z.infer<typeof inventorySchema.shape.disks>;
    dataPaths: z.infer<typeof inventorySchema.shape.dataPaths>;
    cgroup: z.infer<typeof inventorySchema.shape.cgroup>;
    processes: z.infer<typeof processInventorySchema>[];
  };
}

/** Runs every collector as the agent does: rate collectors on both readings, inventory on the second. */
export async function collectSections(pair: TreePair): Promise<Sections> {
  const { sources, close } = await createReportSources(
    { ...pair, probes: [], statsdAddr: null, httpIntakeAddr: null, intervalMs: 1000 },
    silentLogger,
    { listen: false },
  );
  try {
    const contextFor = async (r: Roots, nowMs: number): Promise<CollectorContext> => ({
      ...r,
      nowMs,
      watched: await sources.resolveWatched(r.procRoot),
    });
    const before = await contextFor(pair.before, 10_000);
    const rates = sources.collectors.filter((c) => c.cadence === 'rates');
    await Promise.all(rates.map((c) => c.collect(before)));
    const after = await contextFor(pair.after, 11_000);
    const parts = await Promise.all(sources.collectors.map(async (c) => (await c.collect(after)).part));
    const sections = Object.assign({}, ...parts.map((part) => part.sections)) as Pick<Sections, 'cpu' | 'pressure' | 'disks' | 'cgroups' | 'processes'>;
    const inventory = Object.assign({}, ...parts.map((part) => part.inventory)) as Sections['inventory'];
    const { cpu, pressure, disks, cgroups, processes } = sections;
    return { cpu, pressure, disks, cgroups, processes, inventory };
  } finally {
    await close();
  }
}

/** Each section checked against its own schema in lib/protocol: the sections the protocol refuses, with why. */
export function refusedSections(sections: Sections): string[] {
  const refused: string[] = [];
  const check = (where: string, schema: z.ZodType, value: unknown) => {
    const result = schema.safeParse(value);
    // The issues as JSON: for a union (data or unavailable) they hold each branch's nested paths.
    if (!result.success) refused.push(`${where}: ${JSON.stringify(result.error.issues).slice(0, 2000)}`);
  };
  for (const key of ['cpu', 'pressure', 'disks', 'cgroups', 'processes'] as const) check(key, reportSchema.shape[key], sections[key]);
  for (const key of ['host', 'cpu', 'disks', 'dataPaths', 'cgroup', 'processes'] as const) {
    check(`inventory.${key}`, inventorySchema.shape[key], sections.inventory[key]);
  }
  return refused;
}

/** What the server's ingest would refuse beyond the schemas (duplicate keys, int2/int4 columns). */
export function unstorable(sections: Sections): string | null {
  const report: Report = {
    v: 1,
    seq: 0,
    ts: 1_795_000_000_000,
    intervalMs: 1000,
    host: { hostname: 'odd-files', machineId: null },
    agent: { version: '0.0.0', droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 },
    ...sections,
    latency: [],
    probes: [],
    inventory: withHash(sections.inventory),
  };
  try {
    checkReports([report], false, { nowMs: report.ts, maxFutureMs: 60_000, maxAgeMs: 86_400_000 });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
