import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { IngestResponse } from '../../lib/protocol';
import { eventually } from '../support/live-agent';
import {
  isEverySeqOnce,
  killAgent,
  producedReports,
  spawnDrillAgent,
  spooledSeqs,
  startDrillServer,
  type DrillAgent,
  type DrillServer,
} from '../support/fault-drill';
import { createScratchCluster, type ScratchCluster } from '../support/scratch-postgres';

// Fault drill: PostgreSQL stops for a minute under a running server. The server here is what server.ts starts, minus
// Next: the ingest core, the findings scheduler, alerting and series maintenance, on a cluster of the test's own (this
// file's process holds that one database handle). Ingest answers 503 at once while the database is away, the agent
// spools, and after the restart the backlog arrives exactly once and the cycles run again, with no restart.
const OUTAGE_MS = 60_000;
const CYCLE_MS = 2_000;
/** The pools' connectionTimeoutMillis plus the flush's statement timeout: the longest a request may take when down. */
const LONGEST_ANSWER_MS = 10_000;

let cluster: ScratchCluster;
let workDir: string;
let server: DrillServer;
let stopJobs: (() => Promise<void>) | undefined;
const agents: DrillAgent[] = [];
const cycles = { findings: [] as number[], alerts: [] as number[], maintenance: [] as number[] };
const errors = { findings: [] as number[], alerts: [] as number[], maintenance: [] as number[] };

beforeAll(async () => {
  cluster = await createScratchCluster();
  process.env.DATABASE_URL = cluster.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-fault-pg-'));
  server = await startDrillServer(workDir);

  const { getDb } = await import('../../lib/db');
  const { startFindingsScheduler } = await import('../../lib/findings/engine/scheduler');
  const { startAlerting, findingsLatencyExplainer } = await import('../../lib/alerts');
  const { processSecretBox } = await import('../../lib/server/process-secret-box');
  const { startSeriesMaintenance } = await import('../../lib/series');
  const db = await getDb();
  const failed = (list: number[]) => () => void list.push(Date.now());
  const maintenance = startSeriesMaintenance(db, { intervalMs: CYCLE_MS, onError: failed(errors.maintenance) });
  const findings = startFindingsScheduler(db, {
    intervalMs: CYCLE_MS,
    inventoryPollMs: CYCLE_MS,
    onCycle: () => void cycles.findings.push(Date.now()),
    onError: failed(errors.findings),
  });
  const alerting = await startAlerting(db, {
    publicUrl: 'http://inferwatch.test',
    box: processSecretBox(),
    explainer: findingsLatencyExplainer(db.sql),
    intervalMs: CYCLE_MS,
    onCycle: () => void cycles.alerts.push(Date.now()),
    onError: failed(errors.alerts),
  });
  // Maintenance tells only of failures: a tick that ends without one is a tick that ran.
  const tickMaintenance = setInterval(async () => {
    const failuresBefore = errors.maintenance.length;
    await maintenance.runOnce();
    if (errors.maintenance.length === failuresBefore) cycles.maintenance.push(Date.now());
  }, CYCLE_MS);
  stopJobs = async () => {
    clearInterval(tickMaintenance);
    await alerting.stop();
    await findings.stop();
    await maintenance.stop();
  };
});

afterAll(async () => {
  for (const agent of agents) await killAgent(agent);
  await stopJobs?.();
  await server?.close();
  await cluster?.destroy();
  fs.rmSync(workDir, { recursive: true, force: true });
});

const after = (list: number[], atMs: number) => list.some((t) => t > atMs);

test('PostgreSQL stopped for a minute: ingest answers 503, the agent spools, then every report arrives once and the cycles resume', { timeout: 300_000 }, async () => {
  const stateDir = path.join(workDir, 'agent');
  const start = (args: string[] = []) => {
    const agent = spawnDrillAgent({ serverUrl: server.url, keyFile: server.keyFile, stateDir, intervalS: 1, args: ['--retry-max', '2', ...args] });
    agents.push(agent);
    return agent;
  };
  const agent = start();
  await eventually('reports and cycles before the outage', async () =>
    (await server.storedSeqs()).length >= 3 && cycles.findings.length > 0 && cycles.alerts.length > 0 ? true : undefined,
  );

  await cluster.stop();
  const downAtMs = Date.now();
  const answersBefore = server.answers.length;
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  const duringOutage = server.answers.slice(answersBefore);
  const spooledAtEnd = spooledSeqs(stateDir).length;
  await cluster.start();
  const upAtMs = Date.now();

  expect(duringOutage.length).toBeGreaterThanOrEqual(3);
  expect(duringOutage.map((a) => a.status)).toEqual(duringOutage.map(() => 503));
  expect(Math.max(...duringOutage.map((a) => a.tookMs))).toBeLessThan(LONGEST_ANSWER_MS);
  // The agent makes a report every second; most of the outage's wait in its spool.
  expect(spooledAtEnd).toBeGreaterThanOrEqual(OUTAGE_MS / 1000 / 2);
  expect(agent.logs.some((line) => line.msg === 'delivery failed; will retry' && line.reason === 'HTTP 503')).toBe(true);
  expect(after(errors.findings, downAtMs) && after(errors.alerts, downAtMs)).toBe(true);

  const producedAtRecovery = producedReports(stateDir);
  await eventually('the backlog delivered and every cycle run again after the restart', async () => {
    const delivered = (await server.storedSeqs()).at(-1)! >= producedAtRecovery;
    return delivered && after(cycles.findings, upAtMs) && after(cycles.alerts, upAtMs) && after(cycles.maintenance, upAtMs) ? true : undefined;
  });
  expect(server.answers.slice(answersBefore).filter((a) => a.atMs > upAtMs).some((a) => (a.body as IngestResponse).accepted >= spooledAtEnd)).toBe(true);

  agent.child.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
  expect(await start(['--once']).exited).toBe(0);
  const seqs = await server.storedSeqs();
  const produced = producedReports(stateDir);
  expect({ produced, everySeqOnce: isEverySeqOnce(seqs, produced) }).toEqual({ produced, everySeqOnce: true });
});
