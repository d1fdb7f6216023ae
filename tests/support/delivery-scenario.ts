import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

/** The issue asks for a one-minute outage; 10 s exercises the same backoff path and keeps the suite fast. */
export const OUTAGE_MS = 10_000;
const repoRoot = path.resolve(import.meta.dirname, '../..');

/** What the scenario needs of an ingest server: start/stop it on a port and see what it stored. */
export interface DeliveryTarget {
  listen(port: number): Promise<number>;
  stop(): Promise<void>;
  storedSeqs(): Promise<number[]>;
  enrollments(): Promise<number>;
  /** Secrets that must never appear in the agent's logs. */
  secrets: string[];
  enrollKey: string;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * Runs the real agent CLI at a 1 s interval against `target`: an outage of the server, a SIGKILL of the agent and a
 * restart, a clean stop, then a last --once run that drains the spool. Every seq produced must be stored exactly once.
 */
export async function runDeliveryScenario(target: DeliveryTarget): Promise<void> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-delivery-'));
  const children: (ChildProcess & { log: string[] })[] = [];
  const startAgent = (port: number, extra: string[] = []) => {
    const child = spawn(
      process.execPath,
      [
        '--import', 'tsx', path.join(repoRoot, 'agent/cli.ts'),
        '--server', `http://127.0.0.1:${port}`,
        '--interval', '1',
        '--state-dir', stateDir,
        '--enroll-key', target.enrollKey,
        '--statsd-addr', 'off',
        '--http-intake-addr', 'off',
        ...extra,
      ],
      { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
    ) as ChildProcess & { log: string[] };
    child.log = [];
    child.stderr!.on('data', (d: Buffer) => child.log.push(d.toString('utf8')));
    children.push(child);
    return child;
  };
  const storedCount = async () => (await target.storedSeqs()).length;

  try {
    const port = await target.listen(0);
    const first = startAgent(port);
    await waitFor('the first reports', async () => (await storedCount()) >= 3, 30_000);

    await target.stop();
    const storedBeforeOutage = await storedCount();
    await sleep(OUTAGE_MS);
    expect(await storedCount()).toBe(storedBeforeOutage);
    await target.listen(port);
    const producedDuringOutage = OUTAGE_MS / 1000;
    await waitFor('the outage backlog', async () => (await storedCount()) >= storedBeforeOutage + producedDuringOutage, 60_000);

    await sleep(1500);
    first.kill('SIGKILL');
    await exitOf(first);

    const second = startAgent(port);
    await sleep(4000);
    second.kill('SIGTERM');
    expect(await exitOf(second)).toBe(0);

    // A last --once run sends the remaining backlog oldest first and exits 0 once its own report is acknowledged.
    const last = startAgent(port, ['--once']);
    expect(await exitOf(last)).toBe(0);

    const nextSeq = (JSON.parse(readFileSync(path.join(stateDir, 'seq.json'), 'utf8')) as { nextSeq: number }).nextSeq;
    const seqs = (await target.storedSeqs()).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: nextSeq }, (_, i) => i));
    expect(nextSeq).toBeGreaterThan(storedBeforeOutage + producedDuringOutage);
    expect(await target.enrollments()).toBe(1);
    expect(statSync(path.join(stateDir, 'host-token.json')).mode & 0o777).toBe(0o600);
    const logs = children.flatMap((c) => c.log).join('');
    for (const secret of target.secrets) expect(logs).not.toContain(secret);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}
