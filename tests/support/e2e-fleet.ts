import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { Inventory, Report } from '../../lib/protocol';
import { LatencySketch } from '../../lib/sketch';
import { cleanCpu, cleanInventory } from './findings-facts';
import { makeReport } from './report-factory';

/** What the findings, alerts, settings and safety specs send through the API, as an agent and an operator would. */
// playwright.config.ts starts the server with this token and puts it in the environment of every spec.
export const E2E_ADMIN_TOKEN = process.env.E2E_ADMIN_TOKEN!;
export const adminHeaders = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` };

export interface EnrolledHost {
  hostId: number;
  token: string;
  hostname: string;
  seq: number;
}

export async function createEnrollmentKey(request: APIRequestContext, input: { name: string; region: string; labels?: Record<string, string> }) {
  const response = await request.post('/api/v1/admin/enrollment-keys', { headers: adminHeaders, data: { labels: {}, ...input } });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

export async function enrollHost(request: APIRequestContext, key: string, hostname: string): Promise<EnrolledHost> {
  const response = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname, machineId: null } });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { hostId: number; token: string; nextSeq: number };
  return { hostId: body.hostId, token: body.token, hostname, seq: body.nextSeq };
}

/** Sends reports as the host's agent would, each with the next seq. */
export async function ingest(request: APIRequestContext, host: EnrolledHost, reports: Omit<Report, 'seq' | 'host'>[]): Promise<void> {
  const batch = reports.map((report) => ({ ...report, seq: host.seq++, host: { hostname: host.hostname, machineId: null } }));
  const response = await request.post('/api/v1/ingest', { headers: { Authorization: `Bearer ${host.token}` }, data: { reports: batch } });
  expect(response.status(), await response.text()).toBe(200);
}

/** A host's inventory whose CPU lacks AVX2 and FMA: cpu.avx2-missing, critical, as soon as the inventory is judged. */
export function inventoryWithoutAvx2(patch: Partial<Inventory> = {}): Inventory {
  return cleanInventory({
    hash: `no-avx2-${Date.now()}`,
    cpu: cleanCpu({ model: 'Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz', flags: ['fpu', 'sse4_2', 'avx', 'hypervisor'] }),
    ...patch,
  });
}

/** `count` reports ending now, `intervalMs` apart, with the CPU steal given. */
export function stealReports(count: number, stealPct: number, intervalMs = 2_000, patch: Partial<Report> = {}): Report[] {
  const end = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const base = makeReport({ seq: 0, ts: end - (count - 1 - i) * intervalMs, intervalMs });
    const cpu = base.cpu as Extract<Report['cpu'], { total: unknown }>;
    const total = { ...cpu.total, stealPct, idlePct: Math.max(0, 49 - stealPct - cpu.total.iowaitPct) };
    return { ...base, cpu: { ...cpu, total, perCpu: cpu.perCpu.map((c) => ({ ...c, stealPct, idlePct: Math.max(0, 49 - stealPct - c.iowaitPct) })) }, ...patch };
  });
}

export function latencySeries(name: string, valuesMs: number[]): Report['latency'][number] {
  const sketch = new LatencySketch();
  for (const v of valuesMs) sketch.add(v);
  return { name, tags: {}, sketch: sketch.toWire() };
}

/** A series alert rule on one host's steal that fires at once: a 10 s window, no `for`. */
export async function createStealRule(request: APIRequestContext, input: { id: string; title: string; hostIds: number[]; thresholdPct?: number }) {
  const response = await request.post('/api/v1/alerts/rules', {
    headers: adminHeaders,
    data: {
      id: input.id,
      title: input.title,
      severity: 'critical',
      spec: {
        metric: { kind: 'series', series: 'cpu_steal', aggregation: 'avg' },
        selector: { hostIds: input.hostIds },
        windowMs: 10_000,
        threshold: input.thresholdPct ?? 20,
        clearThreshold: (input.thresholdPct ?? 20) / 2,
        forMs: 0,
      },
    },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** The e2e server listens on loopback, so the browser is signed in as the local admin: wait until the page says so. */
export async function expectAdminAccepted(page: Page): Promise<void> {
  await expect(page.getByTestId('session-menu')).toHaveAttribute('data-role', 'admin', { timeout: 20_000 });
}
