import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Finding } from '../../lib/protocol/findings';
import { eventually, newestProcessInventory, runFindingsCycle, scriptPath, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// Real inference runtimes watched by the real agent CLI: Debian's python3-torch (ATen over GNU OpenMP, the pthreads
// OpenBLAS beside it) and onnxruntime-node (ONNX Runtime's C++ library, as Python's onnxruntime ships it), each a badly
// sized service beside a well-sized twin. The bad PyTorch service is then restarted with good settings, and what the
// fix bought is measured over windows shortened from an hour to EFFECT_WINDOW_MS.
const PYTHON = '/usr/bin/python3';
// The agent watches by name: names of this run only, so a service left behind by a killed run is not a worker here.
const RUN = process.pid.toString(36);
const TORCH_BAD = `iw-torch-bad-${RUN}.py`;
const TORCH_GOOD = `iw-torch-good-${RUN}.py`;
const ORT_BAD = `iw-ort-bad-${RUN}.mjs`;
const ORT_GOOD = `iw-ort-good-${RUN}.mjs`;
/** The latency series a service reports its requests under (tests/support/runtimes). */
const seriesName = (name: string) => name.replace(/\W/g, '_');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const EFFECT_WINDOW_MS = 15_000;

let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
let agent: ChildProcess | undefined;
const services = new Map<string, ChildProcess>();
let statsdPort: number;

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Starts a service under its watch name, pinned with taskset where `cpus` is given (taskset execs it in place). */
function startService(name: string, command: string[], env: Record<string, string>, cpus?: string): ChildProcess {
  const argv = cpus ? ['taskset', '-c', cpus, ...command] : command;
  // Only what the service needs (NODE_ENV only because Next's types require it), so the agent's allow-listed
  // environment is exactly what the test sets.
  const child = spawn(argv[0]!, argv.slice(1), { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', ...env }, stdio: 'ignore' });
  child.unref();
  services.set(name, child);
  return child;
}

const torch = (name: string, ompThreads: number, cpus: string) =>
  startService(name, [PYTHON, path.join(workDir, name), String(statsdPort), seriesName(name)], { OMP_NUM_THREADS: String(ompThreads) }, cpus);
const ort = (name: string, cpus?: string) =>
  startService(
    name,
    [process.execPath, path.join(workDir, name), path.join(process.cwd(), 'tests/fixtures/models/tiny-conv.onnx'), String(statsdPort), seriesName(name)],
    { ORT_MODULE: path.join(process.cwd(), 'node_modules/onnxruntime-node') },
    cpus,
  );

const about = (findings: Finding[], name: string) => findings.filter((f) => f.subject.includes(name));

beforeAll(async () => {
  testDb = await createTestDatabase('iw_findings_runtimes');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-findings-runtimes-'));
  for (const name of [TORCH_BAD, TORCH_GOOD]) fs.copyFileSync(scriptPath('torch_serve.py'), path.join(workDir, name));
  for (const name of [ORT_BAD, ORT_GOOD]) fs.copyFileSync(scriptPath('ort_serve.mjs'), path.join(workDir, name));
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
  statsdPort = await freeUdpPort();
});

afterAll(async () => {
  await stopProcess(agent);
  await Promise.all([...services.values()].map(stopProcess));
  await server?.close();
  await testDb?.drop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('findings on real inference runtimes watched by the real agent', () => {
  test('PyTorch with 8 threads on one CPU and ONNX Runtime on its default pool in one CPU are named with their runtimes, their twins are not; restarting PyTorch with one thread resolves it and measures what that bought', { timeout: 300_000 }, async () => {
    const torchBad = torch(TORCH_BAD, 8, '0');
    const torchGood = torch(TORCH_GOOD, 1, '1');
    const ortBad = ort(ORT_BAD, '0');
    ort(ORT_GOOD);
    agent = startAgent({
      serverUrl: server.url,
      keyFile: path.join(workDir, 'enroll-key'),
      stateDir: path.join(workDir, 'agent'),
      intervalS: 1,
      watch: [TORCH_BAD, TORCH_GOOD, ORT_BAD, ORT_GOOD],
      statsdPort,
    });

    // Runtimes are read from maps as the libraries are mapped: wait for torch's and ONNX Runtime's to be seen.
    const bad = await eventually('the PyTorch service with its runtimes', async () => {
      const p = await newestProcessInventory(torchBad.pid!);
      return p?.runtimes?.some((r) => r.id === 'pytorch') ? p : undefined;
    });
    expect(new Set(bad.runtimes!.map((r) => r.id))).toEqual(new Set(['gnu-openmp', 'openblas-pthreads', 'onednn', 'pytorch']));
    expect(bad.env).toEqual({ OMP_NUM_THREADS: '8' });
    await eventually('the twin PyTorch service', async () => ((await newestProcessInventory(torchGood.pid!))?.runtimes?.some((r) => r.id === 'pytorch') ? true : undefined));
    const ortProcess = await eventually('the ONNX Runtime service', async () => {
      const p = await newestProcessInventory(ortBad.pid!);
      return p?.runtimes?.some((r) => r.id === 'onnxruntime') ? p : undefined;
    });
    expect(ortProcess.runtimes!.map((r) => r.id)).toEqual(['onnxruntime']);

    const opened = await eventually('the PyTorch and ONNX Runtime thread findings', async () => {
      const findings = await runFindingsCycle();
      const seen = about(findings, TORCH_BAD).some((f) => f.ruleId === 'threads.oversubscribed') && about(findings, ORT_BAD).some((f) => f.ruleId === 'threads.unset-in-quota');
      return seen ? findings : undefined;
    });
    const oversubscribed = about(opened, TORCH_BAD).find((f) => f.ruleId === 'threads.oversubscribed')!;
    expect(oversubscribed).toMatchObject({ severity: 'critical', value: 8 });
    expect(oversubscribed.message).toMatch(
      new RegExp(`^OMP_NUM_THREADS=8 × 1 worker on 1 usable CPU \\(cpuset 0\\): ${escapeRegExp(TORCH_BAD)} runs 8 PyTorch intra-op threads`),
    );
    expect(oversubscribed.remedy).toContain('torch.set_num_threads(1) (or OMP_NUM_THREADS=1)');
    const ortFinding = about(opened, ORT_BAD).find((f) => f.ruleId === 'threads.unset-in-quota')!;
    expect(ortFinding.message).toMatch(/ONNX Runtime starts 2 threads unless its size is set in code/);
    // The twins: PyTorch sized to its one CPU, ONNX Runtime's default pool on the two CPUs it may use.
    expect(about(opened, TORCH_GOOD).filter((f) => f.category === 'threads')).toEqual([]);
    expect(about(opened, ORT_GOOD).filter((f) => f.category === 'threads')).toEqual([]);
    // Neither runtime loads Intel's OpenMP: none of its knobs is judged.
    expect(opened.filter((f) => /Intel OpenMP|KMP_/.test(f.message))).toEqual([]);
    expect(opened.filter((f) => f.ruleId.startsWith('openmp.') && (f.subject.includes(ORT_BAD) || f.subject.includes(ORT_GOOD)))).toEqual([]);

    // The comparison reaches back no further than the finding's first sighting: let the bad service serve a window's worth.
    const firstSeenMs = Date.parse(oversubscribed.firstSeenAt);
    await eventually('a window of the bad service', async () => (Date.now() > firstSeenMs + EFFECT_WINDOW_MS ? true : undefined), 60_000);
    await stopProcess(torchBad);
    const fixed = torch(TORCH_BAD, 1, '0');
    await eventually('the restarted PyTorch service', async () => ((await newestProcessInventory(fixed.pid!))?.runtimes?.some((r) => r.id === 'pytorch') ? true : undefined));
    await eventually('the thread finding to resolve', async () => {
      const findings = await runFindingsCycle();
      return about(findings, TORCH_BAD).some((f) => f.ruleId === 'threads.oversubscribed') ? undefined : true;
    });

    const { getDb } = await import('../../lib/db');
    const { getFinding } = await import('../../lib/findings/read/list-findings');
    const { measureFixEffects } = await import('../../lib/findings/effects/measure-effects');
    const db = await getDb();
    const resolved = await getFinding(db, oversubscribed.id);
    expect(resolved.state).toBe('resolved');
    // Measured once the window after the resolution has passed (and its last reports have arrived).
    const resolvedAtMs = Date.parse(resolved.resolvedAt!);
    await eventually('the window after the resolution', async () => (Date.now() > resolvedAtMs + EFFECT_WINDOW_MS + 3_000 ? true : undefined), 60_000);
    expect(await measureFixEffects(db, new Date(), { windowMs: EFFECT_WINDOW_MS, minRequests: 20 })).toBeGreaterThanOrEqual(1);
    const { effect } = await getFinding(db, oversubscribed.id);
    expect(effect).toMatchObject({ status: 'measured' });
    console.log(`fix effect on the live PyTorch service: ${effect!.summary}`);
    expect(effect!.change!.changes).toContain(`${TORCH_BAD} OMP_NUM_THREADS 8 → 1`);
    const series = effect!.latency.find((l) => l.name === seriesName(TORCH_BAD))!;
    expect(series.before.requests).toBeGreaterThan(0);
    expect(series.after.requests).toBeGreaterThan(0);
    expect(series.before.p99Ms).toBeGreaterThan(0);
    expect(series.after.p99Ms).toBeGreaterThan(0);
    expect(effect!.summary).toMatch(new RegExp(`^Resolved at \\d\\d:\\d\\d UTC by ${escapeRegExp(TORCH_BAD)} OMP_NUM_THREADS 8 → 1, .*: p99 \``));
    expect(effect!.gauges).toContainEqual(expect.objectContaining({ metric: 'process_threads', key: TORCH_BAD }));
  });
});
