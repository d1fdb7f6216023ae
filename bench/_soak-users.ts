// Dashboard users, each polling every ~5 s what an open fleet page and an open host page ask the API for, and
// now and then loading one of those pages' server-rendered HTML.
import type { SeriesMetric } from '../lib/protocol/read-api/series';
import { get, type LatencyRecord } from './_timed-http';

const POLL_MS = 5_000;
const POLL_JITTER = 0.1;
// Each user's every sixth poll also loads a page (the fleet's, then a host's): one page load per user per ~30 s.
const PAGE_EVERY_POLLS = 6;
const CHART_METRICS: SeriesMetric[] = ['cpu_steal', 'cpu_iowait', 'load1', 'disk_queue_depth'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

export interface DashboardRecords {
  /** API reads, as the pages' client code makes them. */
  api: LatencyRecord;
  /** Server-rendered pages. */
  pages: LatencyRecord;
}

async function pollOnce(serverUrl: string, headers: Record<string, string>, hostId: number, poll: number, records: DashboardRecords): Promise<void> {
  await records.api.time('GET /api/v1/fleet', () => get(`${serverUrl}/api/v1/fleet`, headers));
  const series = new URLSearchParams({ metric: pick(CHART_METRICS) });
  await Promise.all([
    records.api.time(`GET /api/v1/hosts/${hostId}`, () => get(`${serverUrl}/api/v1/hosts/${hostId}`, headers)),
    records.api.time(`GET /api/v1/hosts/${hostId}/series?${series}`, () => get(`${serverUrl}/api/v1/hosts/${hostId}/series?${series}`, headers)),
  ]);
  if (poll % PAGE_EVERY_POLLS === PAGE_EVERY_POLLS - 1) {
    const page = Math.floor(poll / PAGE_EVERY_POLLS) % 2 === 0 ? '/' : `/hosts/${hostId}`;
    await records.pages.time(`GET ${page}`, () => get(`${serverUrl}${page}`, headers));
  }
}

async function runUser(serverUrl: string, token: string, startAfterMs: number, hostIds: number[], endsAt: number, records: DashboardRecords): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  await sleep(startAfterMs);
  for (let poll = 0; performance.now() < endsAt; poll++) {
    const pollStarted = performance.now();
    await pollOnce(serverUrl, headers, pick(hostIds), poll, records);
    const nextPollAt = pollStarted + POLL_MS * (1 + POLL_JITTER * (2 * Math.random() - 1));
    await sleep(Math.min(nextPollAt, endsAt) - performance.now());
  }
}

/** One user per token, their polls staggered over the poll interval, for `durationMs`. */
export async function runDashboardUsers(serverUrl: string, tokens: string[], hostIds: number[], durationMs: number, records: DashboardRecords): Promise<void> {
  const endsAt = performance.now() + durationMs;
  await Promise.all(tokens.map((token, user) => runUser(serverUrl, token, (user * POLL_MS) / tokens.length, hostIds, endsAt, records)));
}
