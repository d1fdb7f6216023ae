import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../agent/config';
import type { Logger } from '../../../agent/log';
import type { ReportSources } from '../../../agent/report-builder';
import { runAgent } from '../../../agent/run';
import type { Report } from '../../../lib/protocol';
import { collectorsReading } from './fake-collectors';
import { createVirtualClock, type VirtualClock } from './virtual-clock';

// Every test here runs the real loop on a virtual clock: collections "take" time by advancing it, so the
// outcome is the same on a fast or a slow machine.

/** Sources whose cpu collector records the ctx.nowMs it was handed and takes `collectMs` of virtual time. */
function sourcesTaking(clock: VirtualClock, collectMs: number, collectedAt: number[]): ReportSources {
  const unavailable = async () => ({ unavailable: 'test' });
  const none = async () => [];
  return {
    resolveWatched: async () => [],
    collectors: collectorsReading({
      cpu: async (ctx) => {
        collectedAt.push(ctx.nowMs);
        clock.advance(collectMs);
        return { unavailable: 'test' };
      },
      pressure: unavailable,
      disks: unavailable,
      cgroups: unavailable,
      processes: none,
      probes: none,
      'process-inventory': none,
      host: async () => ({ kernel: null, memTotalBytes: null, onlineCpus: 1 }),
      'cpu-inventory': unavailable,
      'disk-inventory': none,
      'data-paths': none,
      'cgroup-limits': unavailable,
    }),
    drainLatency: () => [],
    malformedStatsdPackets: () => 0,
  };
}

interface Run {
  reports: Report[];
  /** ctx.nowMs of every cpu collection: the warm-up's baseline first, then one per report. */
  collectedAt: number[];
  warnings: string[];
  startMs: number;
}

async function runUntil(count: number, { intervalS, collectMs, warmupMs }: { intervalS: string; collectMs: number; warmupMs: number }): Promise<Run> {
  const action = loadConfig({ argv: ['--print', '--interval', intervalS], env: {} });
  if (action.kind !== 'run') throw new Error('expected run');
  const clock = createVirtualClock();
  const startMs = clock.monoMs();
  const reports: Report[] = [];
  const collectedAt: number[] = [];
  const warnings: string[] = [];
  const log: Logger = { debug: () => {}, info: () => {}, warn: (msg) => warnings.push(msg), error: () => {} };
  const controller = new AbortController();
  const exitCode = await runAgent({
    config: action.config,
    log,
    signal: controller.signal,
    print: (text) => {
      reports.push(JSON.parse(text) as Report);
      if (reports.length === count) controller.abort();
    },
    sources: sourcesTaking(clock, collectMs, collectedAt),
    clock,
    warmupMs,
  });
  expect(exitCode).toBe(0);
  return { reports, collectedAt, warnings, startMs };
}

const differences = (values: number[]) => values.slice(1).map((v, i) => v - values[i]!);

describe('runAgent loop', () => {
  test('each report states the time its rates cover: the first from the warm-up baseline, the next from the first report on', async () => {
    const { reports, collectedAt, startMs } = await runUntil(4, { intervalS: '10', collectMs: 30, warmupMs: 250 });
    // Baseline at the start (taking 30 ms), 250 ms warm-up, then the first report at +280; ticks at +10 s, +20 s, +30 s.
    expect(collectedAt.map((t) => t - startMs)).toEqual([0, 280, 10_000, 20_000, 30_000]);
    expect(reports.map((r) => r.intervalMs)).toEqual([280, 9_720, 10_000, 10_000]);
    expect(reports.map((r) => r.intervalMs)).toEqual(differences(collectedAt));
    // ts is the end of the interval, on the wall clock.
    expect(differences(reports.map((r) => r.ts))).toEqual(reports.slice(1).map((r) => r.intervalMs));
  });

  test('every report, the warm-up one too, carries the configured interval the server judges silence by', async () => {
    const { reports } = await runUntil(3, { intervalS: '10', collectMs: 30, warmupMs: 250 });
    expect(reports.map((r) => [r.intervalMs, r.agent.reportEveryMs])).toEqual([[280, 10_000], [9_720, 10_000], [10_000, 10_000]]);
  });

  test('a one-off run (--once) sends no configured interval: nobody knows when it runs next', async () => {
    const action = loadConfig({ argv: ['--print', '--once'], env: {} });
    if (action.kind !== 'run') throw new Error('expected run');
    const clock = createVirtualClock();
    const printed: Report[] = [];
    const log: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    const exitCode = await runAgent({
      config: action.config,
      log,
      signal: new AbortController().signal,
      print: (text) => void printed.push(JSON.parse(text) as Report),
      sources: sourcesTaking(clock, 0, []),
      clock,
      warmupMs: 250,
    });
    expect(exitCode).toBe(0);
    expect(printed).toHaveLength(1);
    expect(printed[0]!.agent).not.toHaveProperty('reportEveryMs');
  });

  test('ticks on a fixed grid: a slow collection does not push later ticks back', async () => {
    const { reports, collectedAt, startMs, warnings } = await runUntil(6, { intervalS: '0.2', collectMs: 120, warmupMs: 50 });
    expect(reports.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    // Baseline 0–120 ms, warm-up to 170, first report 170–290; then tick k lands at k·200 ms, not k·(200 + 120).
    expect(collectedAt.map((t) => t - startMs)).toEqual([0, 170, 400, 600, 800, 1000, 1200]);
    expect(reports.map((r) => r.intervalMs)).toEqual([170, 230, 200, 200, 200, 200]);
    expect(warnings).toEqual(['collection overran the interval; skipping ticks']);
  });

  test('skips ticks when a collection overruns the interval and states the real elapsed time', async () => {
    const { reports, collectedAt, warnings } = await runUntil(5, { intervalS: '0.2', collectMs: 300, warmupMs: 0 });
    expect(reports.map((r) => r.intervalMs)).toEqual(differences(collectedAt));
    expect(reports.slice(2).map((r) => r.intervalMs)).toEqual([400, 400, 400]);
    expect(warnings.length).toBeGreaterThanOrEqual(4);
    expect(new Set(warnings)).toEqual(new Set(['collection overran the interval; skipping ticks']));
  });

  test('only the first report carries the inventory when nothing changes', async () => {
    const { reports } = await runUntil(5, { intervalS: '0.1', collectMs: 0, warmupMs: 250 });
    expect(reports[0]!.inventory).toBeDefined();
    expect(reports.slice(1).every((r) => r.inventory === undefined)).toBe(true);
  });
});

describe('runAgent enrollment', () => {
  test('enrolls once with its key file; restarted with its token it keeps its host without reading the key again', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const http = await import('node:http');
    const os = await import('node:os');
    const path = await import('node:path');
    const seen: { url: string; auth: string | undefined; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('latin1')));
      req.on('end', () => {
        seen.push({ url: req.url!, auth: req.headers.authorization, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url === '/api/v1/enroll') res.end(JSON.stringify({ hostId: 9, token: 'iwh_granted', region: 'oslo', nextSeq: 0 }));
        else res.end(JSON.stringify({ accepted: 1, duplicate: 0, acknowledgedSeqs: [0, 1] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iw-run-enroll-'));
    const keyFile = path.join(dir, 'key');
    writeFileSync(keyFile, 'iwk_secret\n');
    const runOnce = async () => {
      const action = loadConfig({ argv: ['--server', url, '--state-dir', path.join(dir, 'state'), '--enroll-key-file', keyFile, '--once'], env: {} });
      if (action.kind !== 'run') throw new Error('expected run');
      const clock = createVirtualClock();
      const errors: string[] = [];
      const log: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: (msg) => errors.push(msg) };
      const code = await runAgent({ config: action.config, log, signal: new AbortController().signal, sources: sourcesTaking(clock, 0, []), clock, warmupMs: 0 });
      return { code, errors };
    };
    try {
      expect(await runOnce()).toEqual({ code: 0, errors: [] });
      expect(seen.map((r) => [r.url, r.auth])).toEqual([['/api/v1/enroll', 'Bearer iwk_secret'], ['/api/v1/ingest', 'Bearer iwh_granted']]);
      rmSync(keyFile);
      expect(await runOnce()).toEqual({ code: 0, errors: [] });
      expect(seen.slice(2).map((r) => [r.url, r.auth])).toEqual([['/api/v1/ingest', 'Bearer iwh_granted']]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a server that forgot the host (a new database) makes the agent enroll again with the key its file now holds, and say so once', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const http = await import('node:http');
    const os = await import('node:os');
    const path = await import('node:path');
    // What the server knows: the keys and tokens of its database. Forgetting is a new database with a new local key.
    let known = { key: 'iwk_first', token: 'iwh_first' };
    const seen: [string, string | undefined][] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const auth = req.headers.authorization;
        seen.push([req.url!, auth]);
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/v1/enroll' && auth === `Bearer ${known.key}`) {
          res.end(JSON.stringify({ hostId: 1, token: known.token, region: 'local', nextSeq: 0 }));
        } else if (req.url === '/api/v1/ingest' && auth === `Bearer ${known.token}`) {
          res.end(JSON.stringify({ accepted: 1, duplicate: 0, acknowledgedSeqs: [0, 1, 2] }));
        } else {
          const code = req.url === '/api/v1/ingest' ? 'unknown_host_token' : 'unauthorized';
          res.writeHead(401).end(JSON.stringify({ error: { code, message: 'not known here' } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iw-run-reenroll-'));
    const keyFile = path.join(dir, 'key');
    const runOnce = async () => {
      const action = loadConfig({ argv: ['--server', url, '--state-dir', path.join(dir, 'state'), '--enroll-key-file', keyFile, '--once'], env: {} });
      if (action.kind !== 'run') throw new Error('expected run');
      const clock = createVirtualClock();
      const said: string[] = [];
      const log: Logger = { debug: () => {}, info: () => {}, warn: (msg) => said.push(`warn ${msg}`), error: (msg) => said.push(`error ${msg}`) };
      const code = await runAgent({ config: action.config, log, signal: new AbortController().signal, sources: sourcesTaking(clock, 0, []), clock, warmupMs: 0 });
      // The virtual clock is far from the test server's Date header; what is said about that is not this test's.
      return { code, said: said.filter((line) => !line.includes('clock')) };
    };
    try {
      writeFileSync(keyFile, 'iwk_first\n');
      expect(await runOnce()).toEqual({ code: 0, said: [] });
      known = { key: 'iwk_second', token: 'iwh_second' };
      writeFileSync(keyFile, 'iwk_second\n');
      seen.length = 0;
      const second = await runOnce();
      expect(second.code).toBe(0);
      expect(seen).toEqual([
        ['/api/v1/ingest', 'Bearer iwh_first'],
        ['/api/v1/enroll', 'Bearer iwk_second'],
        ['/api/v1/ingest', 'Bearer iwh_second'],
      ]);
      expect(second.said).toEqual([expect.stringMatching(/^warn the server has no record of this host token/)]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
