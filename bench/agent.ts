// `npm run bench -- agent [--minutes N]`: the agent's CPU seconds per hour and peak RSS at the default interval with
// two watched processes, beside prometheus-node-exporter scraped at the same interval in the same window (like for
// like, no StatsD traffic), and beside the floor: a bare Node process reading the same /proc files every interval;
// then the agent again with 100 StatsD timings/s. The agent runs as the single-file bundle an operator installs,
// with the node flags of the example systemd unit. Prints a table, then one JSON line.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const minutesArg = process.argv.indexOf('--minutes');
const windowMs = (minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : 3) * 60_000;
const INTERVAL_S = 10;
const CLK_TCK = 100;
const NODE_EXPORTER = '/usr/bin/prometheus-node-exporter';

function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** A stand-in server: enrolls the agent and acknowledges every report, so delivery cost is part of the figure. */
function startSink(): Promise<{ url: string; reports: () => number; close(): void }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/api/v1/enroll') {
        res.end(JSON.stringify({ hostId: 1, token: 'iwh_bench', region: 'bench', nextSeq: 0 }));
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
      const seqs: number[] = (body.reports ?? [body]).map((r: { seq: number }) => r.seq);
      received += seqs.length;
      res.end(JSON.stringify({ accepted: seqs.length, duplicate: 0, acknowledgedSeqs: seqs }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, reports: () => received, close: () => server.close() });
    }),
  );
}

function startWatchedProcesses(): ChildProcess[] {
  const idleInference = 'setInterval(() => { let x = 0; for (let i = 0; i < 1e5; i++) x += i; }, 200);';
  return [0, 1].map(() =>
    spawn(process.execPath, ['-e', idleInference], { env: { ...process.env, OMP_NUM_THREADS: '2' }, stdio: 'ignore' }),
  );
}

/** The node flags between `node` and the bundle in the example unit's ExecStart, so the bench runs what operators run. */
function unitNodeFlags(): string[] {
  const unit = fs.readFileSync(path.join(root, 'agent', 'inferwatch-agent.service'), 'utf8');
  const execStart = /^ExecStart=\S*node((?:\s+--\S+)*)\s+\S+\.mjs/m.exec(unit);
  if (!execStart) throw new Error('no ExecStart=…node [flags] ….mjs line in agent/inferwatch-agent.service');
  return execStart[1]!.trim().split(/\s+/).filter(Boolean);
}
const AGENT_NODE_FLAGS = unitNodeFlags();

/** The floor the issue compares with: plain `node` reading the files the agent reads each interval, nothing else. */
function startBareReader(watched: ChildProcess[]): ChildProcess {
  const files = [
    '/proc/stat', '/proc/loadavg', '/proc/diskstats', '/proc/meminfo', '/proc/self/mountinfo',
    '/proc/pressure/cpu', '/proc/pressure/io', '/proc/pressure/memory', '/sys/devices/system/cpu/online',
    ...watched.flatMap((child) => ['stat', 'status', 'cgroup', 'comm', 'environ'].map((f) => `/proc/${child.pid}/${f}`)),
  ];
  const script = `const fs = require('fs'); const files = ${JSON.stringify(files)};
    setInterval(() => { for (const f of files) { try { fs.readFileSync(f, 'utf8'); } catch {} } fs.readdirSync('/sys/block'); }, ${INTERVAL_S * 1000});`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

function startAgent(serverUrl: string, watched: ChildProcess[], statsdPort: number): ChildProcess {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-bench-agent-'));
  const keyFile = path.join(stateDir, 'key');
  fs.writeFileSync(keyFile, 'iwk_bench', { mode: 0o600 });
  const args = [
    path.join(root, 'dist', 'inferwatch-agent.mjs'),
    '--server', serverUrl,
    '--enroll-key-file', keyFile,
    '--state-dir', stateDir,
    '--interval', String(INTERVAL_S),
    '--statsd-addr', `127.0.0.1:${statsdPort}`,
    '--http-intake-addr', 'off',
    ...watched.flatMap((child) => ['--watch-pid', String(child.pid)]),
  ];
  return spawn(process.execPath, [...AGENT_NODE_FLAGS, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function startNodeExporter(port: number): ChildProcess {
  if (!fs.existsSync(NODE_EXPORTER)) {
    throw new Error('prometheus-node-exporter is missing: apt-get install prometheus-node-exporter');
  }
  return spawn(NODE_EXPORTER, [`--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
}

function startStatsdLoad(port: number, perSecond: number): () => void {
  const socket = dgram.createSocket('udp4');
  const routes = ['/predict', '/embed', '/rank'];
  let n = 0;
  const timer = setInterval(() => {
    for (let i = 0; i < perSecond / 10; i++) {
      const ms = (Math.exp(Math.random() * 3) * 4).toFixed(2);
      socket.send(`inference.request:${ms}|ms|#route:${routes[n++ % routes.length]}`, port, '127.0.0.1');
    }
  }, 100);
  return () => {
    clearInterval(timer);
    socket.close();
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Measured {
  cpuSPerH: number;
  peakRssMb: number;
}

/** CPU over the window only (start-up excluded), extrapolated to an hour; peak RSS over the whole run. */
async function measure(pids: number[], during: (elapsedMs: number) => void = () => {}): Promise<Measured[]> {
  await sleep(INTERVAL_S * 1000 + 2_000);
  const before = pids.map(cpuSecondsOf);
  const started = Date.now();
  while (Date.now() - started < windowMs) {
    during(Date.now() - started);
    await sleep(INTERVAL_S * 1000);
  }
  const elapsedH = (Date.now() - started) / 3_600_000;
  return pids.map((pid, i) => ({
    cpuSPerH: (cpuSecondsOf(pid) - before[i]!) / elapsedH,
    peakRssMb: peakRssMb(pid),
  }));
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

execFileSync('npm', ['run', '--silent', 'agent:bundle'], { cwd: root, stdio: 'inherit' });
const sink = await startSink();
const watched = startWatchedProcesses();
const exporterPort = 9199;
const children: ChildProcess[] = [...watched];
try {
  console.log(`window ${windowMs / 60_000} min per run, interval ${INTERVAL_S} s, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`agent: node ${AGENT_NODE_FLAGS.join(' ')} dist/inferwatch-agent.mjs (flags from agent/inferwatch-agent.service)`);
  const agent = startAgent(sink.url, watched, 18125);
  const exporter = startNodeExporter(exporterPort);
  const bareReader = startBareReader(watched);
  children.push(agent, exporter, bareReader);
  const scrape = () => void fetch(`http://127.0.0.1:${exporterPort}/metrics`).then((r) => r.text()).catch(() => {});
  const [agentIdle, exporterIdle, bare] = await measure([agent.pid!, exporter.pid!, bareReader.pid!], scrape);
  agent.kill('SIGTERM');
  exporter.kill('SIGTERM');
  bareReader.kill('SIGTERM');

  const loadedAgent = startAgent(sink.url, watched, 18126);
  children.push(loadedAgent);
  const stopLoad = startStatsdLoad(18126, 100);
  const [agentLoaded] = await measure([loadedAgent.pid!]);
  stopLoad();
  loadedAgent.kill('SIGTERM');

  const result = {
    agent_cpu_s_per_h: round(agentIdle!.cpuSPerH),
    node_exporter_cpu_s_per_h: round(exporterIdle!.cpuSPerH),
    agent_statsd_cpu_s_per_h: round(agentLoaded!.cpuSPerH),
    agent_peak_rss_mb: round(Math.max(agentIdle!.peakRssMb, agentLoaded!.peakRssMb), 1),
    node_exporter_peak_rss_mb: round(exporterIdle!.peakRssMb, 1),
    bare_node_reader_cpu_s_per_h: round(bare!.cpuSPerH),
    bare_node_reader_peak_rss_mb: round(bare!.peakRssMb, 1),
    agent_node_flags: AGENT_NODE_FLAGS.join(' '),
    reports_received: sink.reports(),
    window_min: windowMs / 60_000,
  };
  console.table({
    'agent (2 watched, no StatsD)': { 'CPU s/h': result.agent_cpu_s_per_h, 'peak RSS MB': round(agentIdle!.peakRssMb, 1) },
    'node_exporter (scraped every 10 s)': { 'CPU s/h': result.node_exporter_cpu_s_per_h, 'peak RSS MB': result.node_exporter_peak_rss_mb },
    'bare node reading the same /proc files': { 'CPU s/h': result.bare_node_reader_cpu_s_per_h, 'peak RSS MB': result.bare_node_reader_peak_rss_mb },
    'agent + 100 StatsD timings/s': { 'CPU s/h': result.agent_statsd_cpu_s_per_h, 'peak RSS MB': round(agentLoaded!.peakRssMb, 1) },
  });
  console.log(JSON.stringify(result));
} finally {
  for (const child of children) child.kill('SIGKILL');
  sink.close();
}
