import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEMO_INTERVAL_MS, reportsUntilMs, type DemoRegion } from '../../../lib/demo/fleet';
import type { DemoPost, PostAnswer } from '../../../lib/demo/http-post';
import { DemoRunner } from '../../../lib/demo/runner';
import { SELF_LOAD_SETTLE_MS, SelfLoad } from '../../../lib/findings/self-load';
import { fileStateStore, newDemoState, type DemoState, type DemoStateStore } from '../../../lib/demo/state';
import { enrollRequestSchema, ingestSchemaFor, type Report } from '../../../lib/protocol';
import { FakeClock, settle } from './fake-clock';

const START_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;

interface Sent {
  hostname: string;
  token: string;
  reports: Report[];
  atMs: number;
}

/** A server in memory: enrolls hosts (a seq to continue from), stores reports once per seq, answers as told. */
class FakeServer {
  readonly enrollments: { hostname: string; key: string }[] = [];
  readonly sent: Sent[] = [];
  readonly stored = new Map<string, Map<number, Report>>();
  readonly nextSeq = new Map<string, number>();
  private readonly tokens = new Map<string, string>();
  /** Seqs of reports answered with a 4xx, per host. */
  readonly refused = new Map<string, number[]>();
  inFlight = 0;
  maxInFlight = 0;
  /** While set, what an ingest request of that host gets instead of 200 (null: the normal answer). */
  respond: ((hostname: string) => PostAnswer | null) | null = null;
  constructor(public clock: FakeClock, readonly keys: Record<DemoRegion, string>) {}

  post: DemoPost = async (route, body, bearer, options) => {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await settle();
      return this.answer(route, body, bearer, options.gzip);
    } finally {
      this.inFlight--;
    }
  };

  private answer(route: string, body: unknown, bearer: string, gzip: boolean): PostAnswer {
    if (route === '/api/v1/enroll') {
      expect(gzip).toBe(false);
      const request = enrollRequestSchema.parse(body);
      expect(Object.values(this.keys)).toContain(bearer);
      this.enrollments.push({ hostname: request.hostname, key: bearer });
      const token = `token-${request.hostname}-${this.enrollments.length}`;
      this.tokens.set(token, request.hostname);
      const last = Math.max(-1, ...(this.stored.get(request.hostname)?.keys() ?? []));
      return ok({ hostId: this.enrollments.length, token, region: 'oslo', nextSeq: Math.max(last + 1, this.nextSeq.get(request.hostname) ?? 0) });
    }
    expect(route).toBe('/api/v1/ingest');
    expect(gzip).toBe(true);
    const hostname = this.tokens.get(bearer);
    if (!hostname) return { status: 401, body: { error: { code: 'unauthorized' } }, retryAfterMs: null, error: null };
    const parsed = ingestSchemaFor(body).parse(body);
    const reports = 'reports' in parsed ? parsed.reports : [parsed];
    const forced = this.respond?.(hostname);
    if (forced && forced.status >= 400 && forced.status < 500 && forced.status !== 429) {
      this.refused.set(hostname, [...(this.refused.get(hostname) ?? []), ...reports.map((r) => r.seq)]);
    }
    if (forced) return forced;
    this.sent.push({ hostname, token: bearer, reports, atMs: this.clock.nowMs });
    const stored = this.stored.get(hostname) ?? new Map<number, Report>();
    this.stored.set(hostname, stored);
    for (const r of reports) {
      expect(r.host.hostname).toBe(hostname);
      if (!stored.has(r.seq)) stored.set(r.seq, r);
    }
    return ok({ accepted: reports.length, duplicate: 0, acknowledgedSeqs: reports.map((r) => r.seq) });
  }

  forgetTokens(): void {
    this.tokens.clear();
  }
}

const ok = (body: unknown): PostAnswer => ({ status: 200, body, retryAfterMs: null, error: null });

function memoryStore(initial: DemoState | null = null): DemoStateStore & { state: DemoState | null; saves: number } {
  return {
    state: initial && structuredClone(initial),
    saves: 0,
    load() {
      return this.state && structuredClone(this.state);
    },
    save(state) {
      this.state = structuredClone(state);
      this.saves++;
    },
  };
}

const KEYS = { oslo: 'iwe_oslo', frankfurt: 'iwe_frankfurt', stockholm: 'iwe_stockholm' };

function setup(
  options: { store?: ReturnType<typeof memoryStore>; backfillMs?: number; startMs?: number; server?: FakeServer; maxPending?: number; selfLoad?: SelfLoad; keys?: Record<DemoRegion, string> } = {},
) {
  const clock = new FakeClock(options.startMs ?? START_MS);
  const keys = options.keys ?? KEYS;
  const server = options.server ?? new FakeServer(clock, keys);
  server.clock = clock;
  const store = options.store ?? memoryStore();
  const logs: string[] = [];
  const ensured: unknown[] = [];
  const runner = new DemoRunner({
    timers: clock,
    post: server.post,
    ensureKeys: async (saved) => {
      ensured.push(saved);
      return keys;
    },
    store,
    log: (message) => logs.push(message),
    backfillMs: options.backfillMs ?? 20 * MIN,
    batchSize: 50,
    concurrency: 2,
    maxPending: options.maxPending,
    selfLoad: options.selfLoad,
  });
  return { clock, server, store, logs, ensured, runner };
}

const seqsOf = (server: FakeServer, hostname: string) => [...(server.stored.get(hostname)?.keys() ?? [])].sort((a, b) => a - b);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('DemoRunner', { timeout: 120_000 }, () => {
  test('marks its backfill as load of the server\'s own machine, from its start until every host has sent its history', async () => {
    let now = () => 0;
    const selfLoad = new SelfLoad({ hostname: 'server', machineId: null }, () => now());
    const { runner, clock: runnerClock } = setup({ selfLoad });
    now = () => runnerClock.nowMs;
    expect(selfLoad.loadedUntilMs()).toBe(-Infinity);
    await runner.start();
    expect(selfLoad.loadedUntilMs()).toBe(Infinity);
    await runnerClock.advanceTo(START_MS);
    await runner.idle();
    await settle();
    expect(selfLoad.loadedUntilMs()).toBe(runnerClock.nowMs + SELF_LOAD_SETTLE_MS);
    await runner.stop();
  });

  test('enrolls every host once with its region\'s key and backfills the window in batches, oldest first, inventory first', async () => {
    const { clock, server, runner } = setup();
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    const hosts = runner.hosts;
    expect(hosts.length).toBeGreaterThanOrEqual(38);
    // Every host enrolls once (the silent one only if its agent stopped within the backfilled time).
    const reporting = hosts.filter((h) => h.condition !== 'agent-stopped').map((h) => h.hostname);
    expect(server.enrollments.map((e) => e.hostname).filter((h) => reporting.includes(h)).sort()).toEqual(reporting.sort());
    expect(new Set(server.enrollments.map((e) => e.hostname)).size).toBe(server.enrollments.length);
    for (const e of server.enrollments) expect(e.key).toBe(KEYS[runner.hosts.find((h) => h.hostname === e.hostname)!.region]);
    for (const host of hosts) {
      const sent = server.sent.filter((s) => s.hostname === host.hostname);
      const reports = sent.flatMap((s) => s.reports);
      if (host.condition === 'agent-stopped') {
        expect(reports.every((r) => r.ts <= reportsUntilMs(host))).toBe(true);
        continue;
      }
      // 20 minutes at 10 s: 120 or 121 reports depending on the host's phase, in batches of at most 50.
      expect(reports.length).toBeGreaterThanOrEqual(120);
      expect(Math.max(...sent.map((s) => s.reports.length))).toBeLessThanOrEqual(50);
      expect(reports.map((r) => r.seq)).toEqual(range(0, reports.length));
      expect(reports.every((r, i) => i === 0 || r.ts - reports[i - 1]!.ts === DEMO_INTERVAL_MS)).toBe(true);
      expect(reports[0]!.ts).toBeGreaterThan(START_MS - 20 * MIN - DEMO_INTERVAL_MS);
      expect(reports.at(-1)!.ts).toBeLessThanOrEqual(START_MS);
      expect(reports[0]!.inventory).toBeDefined();
      expect(reports.slice(1, 59).every((r) => r.inventory === undefined)).toBe(true);
    }
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
    await runner.stop();
  });

  test('then each host sends one report per interval on its own phase, continuing its seqs', async () => {
    const { clock, server, runner } = setup();
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    const before = server.sent.length;
    await clock.advanceTo(START_MS + 2 * MIN);
    await runner.idle();
    const live = server.sent.slice(before);
    for (const host of runner.hosts.filter((h) => h.condition !== 'agent-stopped')) {
      const mine = live.filter((s) => s.hostname === host.hostname);
      expect(mine.length).toBe(12);
      for (const s of mine) {
        expect(s.reports).toHaveLength(1);
        expect((s.reports[0]!.ts - host.phaseMs) % DEMO_INTERVAL_MS).toBe(0);
        expect(s.atMs - s.reports[0]!.ts).toBeGreaterThanOrEqual(0);
        expect(s.atMs - s.reports[0]!.ts).toBeLessThan(DEMO_INTERVAL_MS);
      }
      const seqs = seqsOf(server, host.hostname);
      expect(seqs).toEqual(range(0, seqs.length));
    }
    expect(live.some((s) => s.hostname === 'oslo-inf-18')).toBe(false);
    await runner.stop();
  });

  test('the silent host sends only its reports up to 20 minutes before the first start', async () => {
    const { clock, server, runner } = setup({ backfillMs: 60 * MIN });
    await runner.start();
    await clock.advanceTo(START_MS + MIN);
    await runner.idle();
    const silent = runner.hosts.find((h) => h.condition === 'agent-stopped')!;
    const reports = [...server.stored.get(silent.hostname)!.values()];
    expect(reports.length).toBeGreaterThanOrEqual(240);
    expect(Math.max(...reports.map((r) => r.ts))).toBeLessThanOrEqual(reportsUntilMs(silent));
    expect(reportsUntilMs(silent)).toBe(START_MS - 20 * MIN);
    await runner.stop();
  });

  test('a restart continues from the saved state: no new enrollment, seqs go on, only the gap is backfilled', async () => {
    const first = setup();
    await first.runner.start();
    await first.clock.advanceTo(START_MS + MIN);
    await first.runner.idle();
    await first.runner.stop();
    const saved = first.store.state!;
    expect(Object.keys(saved.hosts)).toHaveLength(first.runner.hosts.length);

    const restartMs = START_MS + 6 * MIN;
    const enrolledBefore = first.server.enrollments.length;
    const sentBefore = first.server.sent.length;
    const lastSeqs = new Map(first.runner.hosts.map((h) => [h.hostname, seqsOf(first.server, h.hostname).at(-1)]));
    const second = setup({ store: memoryStore(saved), startMs: restartMs, server: first.server });
    await second.runner.start();
    await second.clock.advanceTo(restartMs);
    await second.runner.idle();
    expect(second.server.enrollments).toHaveLength(enrolledBefore);
    expect(second.ensured[0]).toEqual(saved.keys);
    for (const host of second.runner.hosts.filter((h) => h.condition !== 'agent-stopped')) {
      const resent = second.server.sent.slice(sentBefore).filter((s) => s.hostname === host.hostname).flatMap((s) => s.reports);
      // The 5 minutes it was down: 30 reports, from the seq after the last one stored.
      expect(resent.length).toBeGreaterThanOrEqual(29);
      expect(resent.length).toBeLessThanOrEqual(31);
      expect(resent[0]!.seq).toBe(lastSeqs.get(host.hostname)! + 1);
      expect(resent[0]!.ts).toBe(saved.hosts[host.hostname]!.lastTs! + DEMO_INTERVAL_MS);
      expect(resent[0]!.inventory).toBeDefined();
    }
    await second.runner.stop();
  });

  test('on a database that knows none of its keys (a server moved to PostgreSQL) the demo starts over: every host, the silent one too', async () => {
    const first = setup({ backfillMs: 60 * MIN });
    await first.runner.start();
    await first.clock.advanceTo(START_MS + MIN);
    await first.runner.idle();
    await first.runner.stop();

    const movedMs = START_MS + 30 * MIN;
    const newKeys = { oslo: 'iwe_oslo_2', frankfurt: 'iwe_frankfurt_2', stockholm: 'iwe_stockholm_2' };
    const clock = new FakeClock(movedMs);
    const second = setup({ store: memoryStore(first.store.state!), startMs: movedMs, server: new FakeServer(clock, newKeys), keys: newKeys, backfillMs: 60 * MIN });
    await second.runner.start();
    await second.clock.advanceTo(movedMs + MIN);
    await second.runner.idle();
    expect(new Set(second.server.enrollments.map((e) => e.hostname)).size).toBe(second.runner.hosts.length);
    const silent = second.runner.hosts.find((h) => h.condition === 'agent-stopped')!;
    expect(seqsOf(second.server, silent.hostname).length).toBeGreaterThanOrEqual(200);
    expect(second.logs).toContain('the demo state belongs to another database; starting the demo fleet over in this one');
    expect(second.store.state!.epochMs).toBe(movedMs);
    await second.runner.stop();
  });

  test('a rejected token re-enrolls the host, which continues at the seq the server names', async () => {
    const { clock, server, runner, logs } = setup();
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    const enrolled = server.enrollments.length;
    server.forgetTokens();
    for (const host of runner.hosts) server.nextSeq.set(host.hostname, 1000);
    await clock.advanceTo(START_MS + 30_000);
    await runner.idle();
    expect(server.enrollments.length).toBe(enrolled + runner.hosts.length - 1);
    const host = runner.hosts[0]!;
    const seqs = seqsOf(server, host.hostname);
    expect(seqs.filter((s) => s >= 1000)).toEqual(range(1000, seqs.filter((s) => s >= 1000).length));
    expect(seqs.filter((s) => s >= 1000).length).toBeGreaterThanOrEqual(2);
    expect(server.stored.get(host.hostname)!.get(1000)!.inventory).toBeDefined();
    expect(logs.filter((l) => /token was rejected/.test(l))).toHaveLength(1);
    await runner.stop();
  });

  test('429 holds back only that host for its Retry-After; no answer holds back every host, with backoff; nothing is lost', async () => {
    const { clock, server, runner, logs } = setup();
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    const limited = runner.hosts[0]!.hostname;
    server.respond = (h) => (h === limited ? { status: 429, body: null, retryAfterMs: 25_000, error: null } : null);
    const before = server.sent.length;
    await clock.advanceTo(START_MS + 20_000);
    const during = server.sent.slice(before);
    expect(during.some((s) => s.hostname === limited)).toBe(false);
    expect(during.some((s) => s.hostname === runner.hosts[1]!.hostname)).toBe(true);
    server.respond = null;
    await clock.advanceTo(START_MS + 40_000);
    await runner.idle();
    expect(server.sent.slice(before).some((s) => s.hostname === limited && s.reports.length >= 2)).toBe(true);

    // The server goes away for 80 s: every host stops, backs off, and then delivers what it held.
    server.respond = () => ({ status: 0, body: null, retryAfterMs: null, error: 'connect ECONNREFUSED' });
    const sentBeforeOutage = server.sent.length;
    await clock.advanceTo(START_MS + 120_000);
    expect(server.sent.length).toBe(sentBeforeOutage);
    server.respond = null;
    await clock.advanceTo(START_MS + 240_000);
    await runner.idle();
    for (const host of runner.hosts.filter((h) => h.condition !== 'agent-stopped')) {
      const seqs = seqsOf(server, host.hostname);
      expect(seqs).toEqual(range(0, seqs.length));
      expect(server.stored.get(host.hostname)!.get(seqs.at(-1)!)!.ts).toBeGreaterThan(START_MS + 230_000);
    }
    expect(logs.filter((l) => /ECONNREFUSED/.test(l))).toHaveLength(1);
    expect(logs.filter((l) => /rate-limits/.test(l))).toHaveLength(1);
    await runner.stop();
  });

  test('a long outage keeps at most maxPending reports per host, the newest, and says once that it dropped the rest', async () => {
    const { clock, server, runner, logs } = setup({ maxPending: 5 });
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    const host = runner.hosts[0]!.hostname;
    const before = seqsOf(server, host).at(-1)!;
    server.respond = () => ({ status: 503, body: null, retryAfterMs: null, error: null });
    await clock.advanceTo(START_MS + 3 * MIN);
    server.respond = null;
    await clock.advanceTo(START_MS + 5 * MIN);
    await runner.idle();
    const after = seqsOf(server, host).filter((seq) => seq > before);
    // 18 reports were made during the outage; the 5 newest of them survive, then the live ones follow.
    expect(after[0]).toBeGreaterThan(before + 10);
    expect(after).toEqual(range(after[0]!, after.length));
    expect(logs.filter((l) => /dropping the oldest/.test(l))).toHaveLength(1);
    await runner.stop();
  });

  test('reports the server refuses (4xx) are logged once and dropped, never sent again', async () => {
    const { clock, server, runner, logs } = setup();
    await runner.start();
    await clock.advanceTo(START_MS);
    await runner.idle();
    server.respond = () => ({ status: 400, body: { error: { code: 'invalid_payload', message: 'bad' } }, retryAfterMs: null, error: null });
    await clock.advanceTo(START_MS + 10_000);
    await runner.idle();
    server.respond = null;
    await clock.advanceTo(START_MS + 30_000);
    await runner.idle();
    const host = runner.hosts[0]!.hostname;
    const refused = server.refused.get(host)!;
    expect(refused.length).toBeGreaterThan(0);
    expect(seqsOf(server, host).some((seq) => refused.includes(seq))).toBe(false);
    expect(seqsOf(server, host).at(-1)!).toBeGreaterThan(Math.max(...refused));
    expect(logs.filter((l) => /HTTP 400/.test(l))).toHaveLength(1);
    await runner.stop();
  });
});

describe('fileStateStore', () => {
  test('keeps the state in a 0600 file, and reads a missing or damaged one as none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-demo-state-'));
    const file = path.join(dir, 'demo', 'state.json');
    const store = fileStateStore(file);
    expect(store.load()).toBeNull();
    const state = newDemoState('seed', START_MS);
    state.keys.oslo = 'iwe_x';
    state.hosts['oslo-inf-01'] = { hostId: 3, token: 'iwh_y', nextSeq: 42, lastTs: START_MS };
    store.save(state);
    expect(store.load()).toEqual(state);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.writeFileSync(file, '{"version":1,"seed":');
    expect(store.load()).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
