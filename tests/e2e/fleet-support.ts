import zlib from 'node:zlib';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { Inventory, Report } from '../../lib/protocol';
import { LatencySketch } from '../../lib/sketch';
import { cleanCpu, cleanInventory } from '../support/findings-facts';
import { makeReport } from '../support/report-factory';

/** Hosts for the dashboard specs, created through the same API a real agent uses; each spec makes its own. */

const admin = () => ({ Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` });

export async function createEnrollmentKey(request: APIRequestContext, region: string, labels: Record<string, string> = {}): Promise<string> {
  const response = await request.post('/api/v1/admin/enrollment-keys', {
    headers: admin(),
    data: { name: `e2e-${region}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, region, labels },
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

export async function enrollHost(request: APIRequestContext, key: string, hostname: string): Promise<string> {
  const response = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname, machineId: null } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

export function latencyOf(name: string, baseMs: number, count = 200): Report['latency'][number] {
  const sketch = new LatencySketch();
  for (let i = 0; i < count; i++) sketch.add(baseMs * (0.6 + (0.8 * i) / count) + (i % 50 === 0 ? baseMs * 3 : 0));
  return { name, tags: {}, sketch: sketch.toWire() };
}

export const inventoryWithoutAvx2 = (): Inventory =>
  cleanInventory({ hash: `no-avx2-${Date.now()}`, cpu: cleanCpu({ flags: ['fpu', 'sse4_2', 'avx', 'hypervisor'] }) });

/** Reports ending now, 10 s apart, each built by `build(i)` over a valid default. */
export async function ingest(request: APIRequestContext, token: string, count: number, build: (i: number) => Partial<Report>): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const ts = now - (count - 1 - i) * 10_000;
    const response = await request.post('/api/v1/ingest', { headers: { Authorization: `Bearer ${token}` }, data: makeReport({ seq: i + 1, ts, ...build(i) }) });
    expect(response.status(), await response.text()).toBe(200);
  }
}

/** First-load JavaScript of a page, gzip-compressed as a server would send it. */
export async function firstLoadJsGzipBytes(page: Page, path: string): Promise<number> {
  const bodies: Promise<Buffer>[] = [];
  const onResponse = (response: import('@playwright/test').Response) => {
    if (response.request().resourceType() === 'script') bodies.push(response.body().catch(() => Buffer.alloc(0)));
  };
  page.on('response', onResponse);
  await page.goto(path, { waitUntil: 'load' });
  // Chunks loaded lazily after the first paint (the regions chart) count too.
  await page.waitForTimeout(2000);
  page.off('response', onResponse);
  return (await Promise.all(bodies)).reduce((sum, body) => sum + zlib.gzipSync(body).length, 0);
}
