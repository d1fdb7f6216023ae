import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { makeReport } from '../support/report-factory';
import { freePort } from '../support/free-port';

// Deadlines, not expectations: a slow machine only takes longer to pass.
const START_DEADLINE_MS = 180_000;
const ANSWER_DEADLINE_MS = 60_000;


async function fetchOrNull(url: string, init?: RequestInit): Promise<Response | null> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
  } catch {
    return null;
  }
}

function metricSum(text: string, name: string, labels = ''): number {
  const pattern = new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\S+)$`, 'gm');
  return [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** `npm start`'s command without npm and its shell, so that the exit status seen is the server's own. */
function startCommand(): { command: string; args: string[]; env: Record<string, string> } {
  const script = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = script.split(' ');
  const assignments = words.filter((word) => /^[A-Z_]+=/.test(word));
  const [bin, ...args] = words.filter((word) => !assignments.includes(word));
  return {
    command: bin === 'node' ? process.execPath : path.join('node_modules', '.bin', bin!),
    args,
    env: Object.fromEntries(assignments.map((assignment) => assignment.split('=', 2))),
  };
}

function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a server whose log reader went away still answers health and ingest, keeps its agent, and stops on SIGTERM', async () => {
  test.setTimeout(START_DEADLINE_MS + 4 * ANSWER_DEADLINE_MS);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inferwatch-log-pipe-'));
  const baseUrl = `http://127.0.0.1:${await freePort()}`;
  const start = startCommand();
  // As `npm start | head` runs it: the server and its children share one process group and one log pipe.
  const server = spawn(start.command, start.args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...start.env,
      PORT: new URL(baseUrl).port,
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      INFERWATCH_DATA_DIR: path.join(stateDir, 'data'),
      INFERWATCH_STATE_DIR: stateDir,
      INFERWATCH_LOCAL_AGENT_INTERVAL: '1',
      // The local agent must be the only reporter: the demo fleet's reports would count as its deliveries below.
      INFERWATCH_DEMO: '0',
    },
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  try {
    // The reader goes away before the server's first line, so that every line it and its agent write fails.
    server.stdout.destroy();
    server.stderr.destroy();

    const healthStatus = async () => (await fetchOrNull(`${baseUrl}/api/health`))?.status;
    await expect.poll(healthStatus, { timeout: START_DEADLINE_MS }).toBe(200);
    const metrics = async () => {
      const response = await fetchOrNull(`${baseUrl}/metrics`);
      return response?.ok ? response.text() : '';
    };
    await expect
      .poll(async () => metricSum(await metrics(), 'inferwatch_log_writes_dropped_total'), { timeout: ANSWER_DEADLINE_MS })
      .toBeGreaterThan(0);
    const health = await fetchOrNull(`${baseUrl}/api/health`);
    expect(health?.status).toBe(200);
    expect(await health?.json()).toMatchObject({ status: 'ok', database: { ok: true } });

    const keyFile = path.join(stateDir, 'local-enroll-key');
    await expect.poll(() => fs.existsSync(keyFile), { timeout: ANSWER_DEADLINE_MS }).toBe(true);
    const enrolled = await fetchOrNull(`${baseUrl}/api/v1/enroll`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fs.readFileSync(keyFile, 'utf8').trim()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ hostname: `log-pipe-${Date.now()}`, machineId: null }),
    });
    expect(enrolled?.status).toBe(200);
    const { token } = (await enrolled!.json()) as { token: string };
    const ingested = await fetchOrNull(`${baseUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(makeReport({ seq: 1 })),
    });
    expect(ingested?.status).toBe(200);
    expect(await ingested?.json()).toMatchObject({ accepted: 1, acknowledgedSeqs: [1] });

    // The local agent logs as it starts (enrolled, its listeners, started): it delivers only if those failed
    // lines did not kill it.
    const accepted = async () => metricSum(await metrics(), 'inferwatch_ingest_reports_total', 'result="accepted"');
    const acceptedSoFar = await accepted();
    await expect.poll(accepted, { timeout: ANSWER_DEADLINE_MS }).toBeGreaterThanOrEqual(acceptedSoFar + 2);

    process.kill(-server.pid!, 'SIGTERM');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(r, ANSWER_DEADLINE_MS, 'still running'))]);
    expect(code).toBe(0);
    await expect.poll(() => processGroupAlive(server.pid!), { timeout: ANSWER_DEADLINE_MS }).toBe(false);
  } finally {
    if (processGroupAlive(server.pid!)) process.kill(-server.pid!, 'SIGKILL');
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
