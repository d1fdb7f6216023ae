// What `npm start` runs (the compiled server, with its node flags and environment from package.json), started on a
// free port against a given database, and what /proc says about it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../tests/support/free-port';

const root = path.resolve(import.meta.dirname, '..');
const HEALTH_WAIT_MS = 300_000;
const STOP_WAIT_MS = 30_000;
// /proc's clock ticks (USER_HZ), 100 on every Linux this runs on.
const TICKS_PER_S = 100;

export interface CompiledServer {
  pid: number;
  url: string;
  /** Its INFERWATCH_STATE_DIR (the embedded database's data, the local agent's state); removed by stop(). */
  stateDir: string;
  /** Stops it (SIGTERM) and removes its state dir, unless `keepState` (to start it again on the same data). */
  stop(options?: { keepState?: boolean }): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds as `npm start` would: only when there is no build or the sources are newer. */
export async function ensureBuilt(log: (message: string) => void): Promise<void> {
  const { isBuildStale } = await import('../scripts/build-state.mjs');
  if (!isBuildStale(root)) return;
  log('building (npm run build)');
  const { buildAll } = await import('../scripts/build.mjs');
  await buildAll(root);
}

/** `npm start`'s node flags and environment assignments, read from package.json so the figures are of what it runs. */
export function startCommand(): { flags: string[]; env: Record<string, string> } {
  const script = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = script.split(' ');
  return {
    flags: words.filter((word) => word.startsWith('--')),
    env: Object.fromEntries(words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2) as [string, string])),
  };
}

/**
 * The server on 127.0.0.1 against `databaseUrl`, with `env` over `npm start`'s; the caller's own INFERWATCH_*
 * settings are left out, so the server's defaults (its ingest rate limits among them) are what is measured.
 */
export async function startCompiledServer(
  databaseUrl: string,
  env: Record<string, string>,
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inferwatch-bench-server-')),
): Promise<CompiledServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const start = startCommand();
  const inherited = { ...process.env };
  for (const name of Object.keys(inherited).filter((key) => key.startsWith('INFERWATCH_'))) delete inherited[name];
  const child = spawn(process.execPath, [...start.flags, path.join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...inherited,
      ...start.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      INFERWATCH_DATA_DIR: path.join(stateDir, 'data'),
      INFERWATCH_STATE_DIR: stateDir,
    },
  });
  const stop = async ({ keepState = false } = {}) => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
      await exited;
      clearTimeout(killer);
    }
    if (!keepState) fs.rmSync(stateDir, { recursive: true, force: true });
  };
  for (let waited = 0; ; waited += 500) {
    if (child.exitCode !== null || waited > HEALTH_WAIT_MS) {
      await stop();
      throw new Error(child.exitCode !== null ? `the server exited with ${child.exitCode}` : 'the server did not answer /api/health');
    }
    if (await fetch(`${url}/api/health`).then((res) => res.ok, () => false)) break;
    await sleep(500);
  }
  return { pid: child.pid!, url, stateDir, stop };
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 102.4) / 10;
}

/** utime + stime of one process so far, in seconds (/proc/<pid>/stat fields 14 and 15). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}
