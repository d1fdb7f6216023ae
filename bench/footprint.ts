// `npm run bench -- footprint [--minutes N]`: the resident memory of what `npm start` runs, idle with one host (its
// local agent) after N minutes (default 2) — on the embedded database and against a PostgreSQL server, side by side —
// and of that local agent, beside references measured in the same run: a bare `node` process and a bare PGlite
// opened with the server's settings on a copy of the same data; then the embedded server once more, started again on
// its own data (no initdb, no migrations). Prints a table, then one JSON line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, rssMb, startCommand, startCompiledServer, type CompiledServer } from './_compiled-server';
import { adminStatement } from './_fleet-database';

const root = path.resolve(import.meta.dirname, '..');
const minutesArg = process.argv.indexOf('--minutes');
const idleMs = (minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : 2) * 60_000;
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const { EMBEDDED_START_PARAMS } = await import('../lib/db/embedded-settings');

const log = (message: string) => console.error(`[bench footprint ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Waits until the local agent's host has reported, so the server holds one host as the figure says. */
async function waitForOneHost(server: CompiledServer): Promise<void> {
  const agentState = path.join(server.stateDir, 'agent');
  for (let waited = 0; waited < 120_000; waited += 1_000) {
    if (fs.existsSync(agentState) && fs.readdirSync(agentState).some((file) => file.includes('token'))) return;
    await sleep(1_000);
  }
  throw new Error(`the local agent of the server on ${server.url} never enrolled`);
}

/** A reference process, run with `npm start`'s flags and environment: runs `source` and reports its own RSS once settled. */
async function referenceRssMb(source: string, args: string[] = []): Promise<number> {
  const start = startCommand();
  const child = spawn(process.execPath, [...start.flags, '--input-type=module', '-e', source, ...args], {
    cwd: root,
    env: { ...process.env, ...start.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return Number(out.trim());
}

const BARE_NODE = `setTimeout(() => console.log(Math.round(process.memoryUsage().rss / 104857.6) / 10), 5000);`;
const BARE_PGLITE = `
import { PGlite } from '@electric-sql/pglite';
const [dir, params] = process.argv.slice(1);
const db = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...JSON.parse(params)] });
await db.query('SELECT count(*) FROM hosts');
await new Promise((resolve) => setTimeout(resolve, 5000));
console.log(Math.round(process.memoryUsage().rss / 104857.6) / 10);
await db.close();`;

await ensureBuilt(log);

const serverDb = `iw_bench_footprint_${Date.now()}`;
await adminStatement(baseUrl, `CREATE DATABASE "${serverDb}"`);
const serverUrl = Object.assign(new URL(baseUrl), { pathname: `/${serverDb}` }).toString();
const servers: CompiledServer[] = [];
try {
  log('starting the server on the embedded database and against PostgreSQL');
  servers.push(await startCompiledServer('', { INFERWATCH_DEMO: '0' }), await startCompiledServer(serverUrl, { INFERWATCH_DEMO: '0' }));
  await Promise.all(servers.map(waitForOneHost));
  log(`idle for ${idleMs / 60_000} min with one host each`);
  await sleep(idleMs);
  const [embedded, postgres] = servers.map((server) => ({ rss: rssMb(server.pid), agents: childPids(server.pid).map(rssMb) }));

  // The bare PGlite opens a copy of the embedded server's data (a running server holds its folder).
  const dataCopy = fs.mkdtempSync(path.join(os.tmpdir(), 'inferwatch-footprint-pglite-'));
  fs.cpSync(path.join(servers[0]!.stateDir, 'data'), dataCopy, { recursive: true });
  for (const lock of fs.readdirSync(dataCopy).filter((file) => file.endsWith('.lock'))) fs.rmSync(path.join(dataCopy, lock));
  const bareNode = await referenceRssMb(BARE_NODE);
  const barePglite = await referenceRssMb(BARE_PGLITE, [dataCopy, JSON.stringify(EMBEDDED_START_PARAMS)]);
  fs.rmSync(dataCopy, { recursive: true, force: true });

  // A server lives on its database far longer than its first start, whose initdb and migrations leave PGlite's
  // WebAssembly memory touched for good (it never shrinks): the same server started again on the same data.
  log(`starting the embedded server again on its data, idle for ${idleMs / 60_000} min`);
  await servers[0]!.stop({ keepState: true });
  servers[0] = await startCompiledServer('', { INFERWATCH_DEMO: '0' }, servers[0]!.stateDir);
  await waitForOneHost(servers[0]);
  await sleep(idleMs);
  const restarted = rssMb(servers[0].pid);

  const figures = {
    server_embedded_rss_mb: embedded!.rss,
    server_embedded_restarted_rss_mb: restarted,
    server_postgres_rss_mb: postgres!.rss,
    agent_rss_mb: embedded!.agents[0] ?? null,
    bare_node_rss_mb: bareNode,
    bare_pglite_rss_mb: barePglite,
    embedded_over_bare_pglite_mb: Math.round((embedded!.rss - barePglite) * 10) / 10,
    postgres_over_bare_node_mb: Math.round((postgres!.rss - bareNode) * 10) / 10,
    idle_min: idleMs / 60_000,
    start_command: [...Object.entries(startCommand().env).map(([name, value]) => `${name}=${value}`), ...startCommand().flags].join(' '),
  };
  console.log('| process | RSS MB | reference |');
  console.log('|---|---|---|');
  console.log(`| server, embedded database | ${figures.server_embedded_rss_mb} | bare PGlite with the same settings ${barePglite} |`);
  console.log(`| the same server started again on its data | ${figures.server_embedded_restarted_rss_mb} | bare PGlite with the same settings ${barePglite} |`);
  console.log(`| server, PostgreSQL server | ${figures.server_postgres_rss_mb} | bare node ${bareNode} |`);
  console.log(`| local agent (bundle) | ${figures.agent_rss_mb} | bare node ${bareNode} |`);
  console.log(JSON.stringify(figures));
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await adminStatement(baseUrl, `DROP DATABASE IF EXISTS "${serverDb}" WITH (FORCE)`);
}
