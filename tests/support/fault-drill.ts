import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { IngestInput, IngestOutput } from '../../lib/ingest/ingest-request';
import { createTestDatabase, type TestDatabase } from './test-database';
import { rowsOf } from './rows';

/**
 * What an ingest request meets in a drill: the real handler ('pass'), a 503 without reading it ('refuse'), or
 * 'hold': its body is read and it waits until release() before the real ingest stores it, so a test can act while
 * a delivery is in flight.
 */
export type IngestGate = 'pass' | 'refuse' | 'hold';

/** One answer of the real ingest: what it said, when, and how long the request took from its arrival. */
export interface DrillAnswer {
  status: number;
  body: unknown;
  atMs: number;
  tookMs: number;
}

export interface DrillServer {
  url: string;
  keyFile: string;
  setGate(gate: IngestGate): void;
  /** Resolves when a request met the 'hold' gate and its whole body has arrived. */
  held(): Promise<void>;
  /** Lets the held requests go on to the real ingest; resolves with their answers once stored. */
  release(): Promise<DrillAnswer[]>;
  /** Every answer the real ingest gave, in order (held requests' once answered; not the gate's refusals). */
  answers: DrillAnswer[];
  /** Stored seqs, oldest first, one per ledger row (a seq stored twice appears twice). */
  storedSeqs(): Promise<number[]>;
  close(): Promise<void>;
}

const REFUSED: IngestOutput = {
  status: 503,
  body: { error: { code: 'database_unavailable', message: 'drill: refusing every report' } },
  headers: {},
};

/**
 * The real enroll route and ingest (lib/ingest's node:http handler over the process's database, as server.ts serves
 * it) with a gate in front, over the database DATABASE_URL names (set it first). Writes an enrollment key for region
 * oslo into `workDir`.
 */
export async function startDrillServer(workDir: string): Promise<DrillServer> {
  const { ingestWithProcessDatabase, closeIngest } = await import('../../lib/server/process-ingest');
  const { createIngestHttpHandler } = await import('../../lib/ingest/http/node-handler');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { getDb, closeDb } = await import('../../lib/db');
  const db = await getDb();
  const { key } = await createEnrollmentKey(db, { name: 'drill', region: 'oslo', labels: {} });
  const keyFile = path.join(workDir, 'enroll-key');
  fs.writeFileSync(keyFile, key, { mode: 0o600 });

  let gate: IngestGate = 'pass';
  const answers: DrillAnswer[] = [];
  const waiting: (() => void)[] = [];
  const heldAnswers: Promise<DrillAnswer>[] = [];
  let onHeld: () => void = () => {};
  let heldArrived = new Promise<void>((resolve) => (onHeld = resolve));

  const recorded = (output: IngestOutput, arrivedMs: number): DrillAnswer => {
    const answer = { status: output.status, body: output.body, atMs: Date.now(), tookMs: performance.now() - arrivedMs };
    answers.push(answer);
    return answer;
  };

  async function hold(input: IngestInput): Promise<IngestOutput> {
    // The whole body has reached the server before the test is told.
    const body = typeof input.body === 'function' ? await input.body(16 * 1024 * 1024) : input.body;
    const released = new Promise<void>((resolve) => waiting.push(resolve));
    onHeld();
    await released;
    return ingestWithProcessDatabase({ ...input, body });
  }

  const handleIngest = createIngestHttpHandler(async (input) => {
    if (gate === 'refuse') return REFUSED;
    const arrivedMs = performance.now();
    if (gate === 'pass') {
      const output = await ingestWithProcessDatabase(input);
      recorded(output, arrivedMs);
      return output;
    }
    const output = hold(input);
    heldAnswers.push(output.then((o) => recorded(o, arrivedMs)));
    return output;
  });

  const inFlight = new Set<Promise<unknown>>();
  const server = http.createServer((req, res) => {
    if (req.url === '/api/v1/ingest') {
      // An agent killed while its request was held is gone when the answer is written.
      res.on('error', () => {});
      const handled = handleIngest(req, res).finally(() => inFlight.delete(handled));
      inFlight.add(handled);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = req.headers as Record<string, string>;
      const response = await enroll(new Request(`http://127.0.0.1${req.url}`, { method: 'POST', headers, body: Buffer.concat(chunks) }));
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(await response.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyFile,
    setGate(next) {
      gate = next;
    },
    held: () => heldArrived,
    async release() {
      heldArrived = new Promise<void>((resolve) => (onHeld = resolve));
      for (const resolve of waiting.splice(0)) resolve();
      return Promise.all(heldAnswers.splice(0));
    },
    answers,
    async storedSeqs() {
      const rows = await rowsOf<{ seq: number }>(db.sql, 'SELECT seq FROM report_ledger ORDER BY seq');
      return rows.map((row) => Number(row.seq));
    },
    async close() {
      for (const resolve of waiting.splice(0)) resolve();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(inFlight);
      await closeIngest();
      await closeDb();
    },
  };
}

export interface DrillContext {
  readonly server: DrillServer;
  /** The agent's state dir the file's tests share. */
  readonly stateDir: string;
  /** The real agent CLI against this drill's server; whatever is still running is killed after the file's tests. */
  startAgent(options: { intervalS: number; args?: string[]; nodeArgs?: string[] }): DrillAgent;
}

/**
 * A drill file's setup: a test database named after `name`, a work dir, the drill server over them, and the agents
 * the tests start; all of it torn down after the file's tests.
 */
export function setUpDrill(name: string): DrillContext {
  let testDb: TestDatabase | undefined;
  let workDir = '';
  let server: DrillServer | undefined;
  const agents: DrillAgent[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase(`iw_fault_${name.replaceAll('-', '_')}`);
    process.env.DATABASE_URL = testDb.url;
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), `iw-fault-${name}-`));
    server = await startDrillServer(workDir);
  });

  afterAll(async () => {
    for (const agent of agents) await killAgent(agent);
    await server?.close();
    await testDb?.drop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  const started = () => {
    if (!server) throw new Error('the drill server starts in beforeAll');
    return server;
  };
  const stateDir = () => path.join(workDir, 'agent');
  return {
    get server() {
      return started();
    },
    get stateDir() {
      return stateDir();
    },
    startAgent(options) {
      const agent = spawnDrillAgent({ serverUrl: started().url, keyFile: started().keyFile, stateDir: stateDir(), ...options });
      agents.push(agent);
      return agent;
    },
  };
}

export interface AgentLogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface DrillAgent {
  child: ChildProcess;
  /** Its log lines so far (stderr, one JSON object each), while its stderr is still read. */
  logs: AgentLogLine[];
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * The real agent CLI reporting to `serverUrl` every `intervalS`, its stdout and stderr on pipes this process reads
 * (and may close). `nodeArgs` go before the script (e.g. another --import).
 */
export function spawnDrillAgent(options: {
  serverUrl: string;
  keyFile: string;
  stateDir: string;
  intervalS: number;
  args?: string[];
  nodeArgs?: string[];
  env?: Record<string, string>;
}): DrillAgent {
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []), '--import', 'tsx', 'agent/cli.ts',
      '--server', options.serverUrl, '--enroll-key-file', options.keyFile, '--state-dir', options.stateDir,
      '--interval', String(options.intervalS), '--statsd-addr', 'off', '--http-intake-addr', 'off',
      ...(options.args ?? []),
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  const logs: AgentLogLine[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as AgentLogLine);
      } catch {
        logs.push({ level: 'raw', msg: line });
      }
    }
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, logs, exited };
}

export async function killAgent(agent: DrillAgent | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!agent || agent.child.exitCode !== null || agent.child.signalCode !== null) return;
  agent.child.kill(signal);
  await agent.exited;
}

/** `seqs` is 0, 1, …, n-1 with each once: every report the agent produced, stored exactly once. */
export function isEverySeqOnce(seqs: readonly number[], n: number): boolean {
  return seqs.length === n && seqs.every((seq, i) => seq === i);
}

/** The next seq the agent would use: how many reports it has produced. */
export function producedReports(stateDir: string): number {
  return (JSON.parse(fs.readFileSync(path.join(stateDir, 'seq.json'), 'utf8')) as { nextSeq: number }).nextSeq;
}

/** Seqs still waiting in the agent's spool. */
export function spooledSeqs(stateDir: string): number[] {
  return fs
    .readdirSync(path.join(stateDir, 'spool'))
    .map((name) => /^r-(\d+)\.json$/.exec(name)?.[1])
    .filter((seq): seq is string => seq !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
