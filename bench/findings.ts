// `npm run bench -- findings [--hosts N] [--keep]`: one full findings cycle (every rule over every host and region) on a
// generated fleet, beside one plain SQL query that reads the same inputs in the same run.
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../lib/db/open';
import { ensurePartitions } from '../lib/db/partitions';
import { FindingsEngine } from '../lib/findings/engine/engine';
import { withoutJit } from '../lib/db/without-jit';
import { FINDINGS_WINDOW_MS, PROBE_WINDOW_MS } from '../lib/findings/read/read-facts';
import { FINDING_RULES } from '../lib/findings/registry';
import type { Inventory } from '../lib/protocol';
import { cleanInventory, watchedProcess } from '../tests/support/findings-facts';
import { adminStatement } from './_fleet-database';

const hostsArg = process.argv.indexOf('--hosts');
const HOSTS = hostsArg > 0 ? Number(process.argv[hostsArg + 1]) : 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const keep = process.argv.includes('--keep');
const TARGET_CYCLE_MS = 2_000;
const HISTORY_MS = 60 * 60_000;
const TARGET_RATIO = 3;
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const admin = (statement: string) => adminStatement(baseUrl, statement);

async function timed(label: string, fn: () => Promise<unknown>) {
  const started = performance.now();
  await fn();
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** A realistic inventory; about one host in ten carries one of the misconfigurations the rules look for. */
function inventoryOf(i: number): Inventory {
  const inv = cleanInventory({ hash: `h${i}` });
  if (i % 50 === 0 && !('unavailable' in inv.cpu)) inv.cpu.flags = inv.cpu.flags.filter((f) => f !== 'avx2' && f !== 'fma');
  if (i % 40 === 1 && Array.isArray(inv.disks)) inv.disks = [{ ...inv.disks[0]!, device: 'sda', class: 'ssd', rotational: false }];
  if (i % 40 === 1) inv.dataPaths = [{ path: '/models', device: 'sda', mountPoint: '/', fsType: 'ext4' }];
  inv.processes = [
    watchedProcess({ pid: 1000 + i, env: i % 30 === 2 ? { OMP_NUM_THREADS: '16', KMP_AFFINITY: 'granularity=fine,compact,1,0' } : { OMP_NUM_THREADS: '4', KMP_BLOCKTIME: '1', KMP_AFFINITY: 'granularity=fine,compact,1,0' }, cpusAllowedList: '0-3', cpusAllowedCount: 4 }),
    watchedProcess({ pid: 2000 + i, env: { OMP_NUM_THREADS: '4', KMP_BLOCKTIME: '1', KMP_AFFINITY: 'granularity=fine,compact,1,0' }, cpusAllowedList: '4-7', cpusAllowedCount: 4 }),
  ];
  return inv;
}

// The inputs a cycle reads, each through the (host_id, ts) keys as the engine does: the reference its cost is
// measured against: one query for the hosts, and the regions' probe medians beside it.
const INPUT_READ_SQL = `
SELECT h.id, h.hostname, h.region, h.labels, i.data, w.*, d.disks, g.cgroups, p.processes
  FROM hosts h
  LEFT JOIN LATERAL (SELECT data FROM inventory_snapshots WHERE host_id = h.id ORDER BY taken_at DESC, id DESC LIMIT 1) i ON TRUE
  CROSS JOIN LATERAL (
    SELECT count(*) AS n, max(ts) AS last_ts, avg(cpu_steal_pct) AS steal, max(cpu_steal_pct) AS steal_max,
           avg(cpu_iowait_pct) AS iowait, avg(cpu_user_pct + cpu_nice_pct + cpu_system_pct + cpu_irq_pct + cpu_softirq_pct) AS busy,
           avg(psi_cpu_some_avg10) AS psi_cpu, avg(psi_io_some_avg10) AS psi_io, max(dropped_reports) - min(dropped_reports) AS dropped
      FROM host_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2) w
  CROSS JOIN LATERAL (
    SELECT json_agg(x) AS disks FROM (
      SELECT u.device, avg(u.q) AS q, avg(u.ra) AS ra, avg(u.wa) AS wa, avg(u.util) AS util
        FROM disk_sample_arrays a CROSS JOIN LATERAL unnest(a.device, a.queue_depth, a.read_await_ms, a.write_await_ms, a.util_pct) AS u(device, q, ra, wa, util)
       WHERE a.host_id = h.id AND a.ts > $1 AND a.ts <= $2 GROUP BY u.device) x) d
  CROSS JOIN LATERAL (
    SELECT json_agg(x) AS cgroups FROM (
      SELECT path, avg(throttled_pct) AS thr FROM cgroup_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2 GROUP BY path) x) g
  CROSS JOIN LATERAL (
    SELECT json_agg(x) AS processes FROM (
      SELECT name, pid, max(threads) AS threads, avg(cpu_cores) AS cpu FROM process_samples
       WHERE host_id = h.id AND ts > $1 AND ts <= $2 GROUP BY name, pid) x) p`;

const INPUT_READ_PROBES_SQL = `
SELECT h.region, s.name, percentile_cont(0.5) WITHIN GROUP (ORDER BY s.connect_ms) AS rtt
  FROM hosts h CROSS JOIN LATERAL (SELECT name, connect_ms FROM probe_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2 AND ok) s
 GROUP BY 1, 2`;

const name = `qbench_findings_${randomBytes(4).toString('hex')}`;
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ kind: 'server', url: url.toString() });
try {
  const endMs = Math.floor(Date.now() / 10_000) * 10_000;
  const now = new Date(endMs + 1_000);
  const windowStart = new Date(endMs - FINDINGS_WINDOW_MS);
  const probeStart = new Date(endMs - PROBE_WINDOW_MS);
  // An hour of history in the day's partition, as a fleet has by then: a read that filtered on time alone would pay
  // for all of it, not just the window.
  const historyStart = new Date(endMs - HISTORY_MS);
  await ensurePartitions(db.sql, now, 2, 1);
  console.log(`generating ${HOSTS} hosts into ${name}`);
  await timed('hosts', () =>
    db.sql.query(
      `INSERT INTO hosts (id, hostname, region, labels, token_hash, last_seen_at, last_report_ts)
       SELECT i, 'host-' || i, CASE WHEN i % 2 = 0 THEN 'oslo' ELSE 'frankfurt' END,
              jsonb_build_object('service', CASE WHEN i % 3 = 0 THEN 'ranker' ELSE 'embedder' END), 'bench-' || i, $2, $2
         FROM generate_series(1, $1::int) i`,
      [HOSTS, new Date(endMs)],
    ),
  );
  await timed('inventory snapshots', async () => {
    for (let first = 1; first <= HOSTS; first += 1000) {
      const ids = Array.from({ length: Math.min(1000, HOSTS - first + 1) }, (_, k) => first + k);
      await db.sql.query(
        `INSERT INTO inventory_snapshots (host_id, hash, taken_at, data)
         SELECT h, 'h' || h, $2, d::jsonb FROM unnest($1::int4[], $3::text[]) AS v(h, d)`,
        [ids, new Date(endMs - 3_600_000), ids.map((i) => JSON.stringify(inventoryOf(i)))],
      );
    }
  });
  // Window series: 30 reports per host at 10 s; one host in twenty has a noisy neighbour, one in 25 a busy disk.
  await timed('host_samples', () =>
    db.sql.query(
      `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_user_pct, cpu_nice_pct, cpu_system_pct, cpu_iowait_pct,
         cpu_irq_pct, cpu_softirq_pct, cpu_steal_pct, cpu_idle_pct, load1, psi_cpu_some_avg10, psi_io_some_avg10)
       SELECT h, t, 10000, 40 + random() * 10, 0, 8, CASE WHEN h % 25 = 3 THEN 15 + random() * 5 ELSE random() END,
              0.3, 0.5, CASE WHEN h % 20 = 4 THEN 8 + random() * 10 ELSE random() * 0.5 END, 40, 2, random() * 5, random() * 2
         FROM generate_series(1, $1::int) h, generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
      [HOSTS, historyStart, new Date(endMs)],
    ),
  );
  await timed('cpu_sample_arrays (8 vCPUs)', () =>
    db.sql.query(
      `INSERT INTO cpu_sample_arrays (host_id, ts, cpu, user_pct, nice_pct, system_pct, iowait_pct, irq_pct, softirq_pct, steal_pct, idle_pct)
       SELECT h, t, '{0,1,2,3,4,5,6,7}', '{40,40,40,40,40,40,40,40}', '{0,0,0,0,0,0,0,0}', '{8,8,8,8,8,8,8,8}', '{1,1,1,1,1,1,1,1}',
              '{0,0,0,0,0,0,0,0}', '{0,0,0,0,0,0,0,0}',
              CASE WHEN h % 20 = 4 THEN '{2,2,20,24,2,2,2,2}'::real[] ELSE '{0,0,0,0,0,0,0,0}'::real[] END, '{50,50,50,50,50,50,50,50}'
         FROM generate_series(1, $1::int) h, generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
      [HOSTS, historyStart, new Date(endMs)],
    ),
  );
  await timed('disk_sample_arrays (2 disks)', () =>
    db.sql.query(
      `INSERT INTO disk_sample_arrays (host_id, ts, device, read_iops, write_iops, read_bytes_per_s, write_bytes_per_s,
         read_await_ms, write_await_ms, queue_depth, in_flight, util_pct)
       SELECT h, t, '{nvme0n1,sda}', '{500,20}', '{300,10}', '{1e8,1e6}', '{5e7,5e5}',
              CASE WHEN h % 25 = 3 THEN '{0.4,45}'::real[] ELSE '{0.4,2}'::real[] END, '{0.6,3}',
              CASE WHEN h % 25 = 3 THEN '{0.5,9}'::real[] ELSE '{0.5,0.1}'::real[] END, '{0,0}', '{10,3}'
         FROM generate_series(1, $1::int) h, generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
      [HOSTS, historyStart, new Date(endMs)],
    ),
  );
  await timed('cgroup_samples and process_samples', () =>
    Promise.all([
      db.sql.query(
        `INSERT INTO cgroup_samples (host_id, ts, path, quota_cores, effective_cpus, usage_cores, throttled_periods_per_s, throttled_pct, throttled_ms_per_s)
         SELECT h, t, '/system.slice/inference.service', 4, 4, 3.5, CASE WHEN h % 33 = 5 THEN 3 ELSE 0 END,
                CASE WHEN h % 33 = 5 THEN 30 ELSE 0 END, CASE WHEN h % 33 = 5 THEN 80 ELSE 0 END
           FROM generate_series(1, $1::int) h, generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
        [HOSTS, historyStart, new Date(endMs)],
      ),
      db.sql.query(
        `INSERT INTO process_samples (host_id, ts, name, pid, threads, cpu_cores, rss_bytes, voluntary_cs_per_s, nonvoluntary_cs_per_s)
         SELECT h, t, 'serve.py', p * 1000 + h, 12, 1.5, 2e9, 100, 20
           FROM generate_series(1, $1::int) h, generate_series(1, 2) p,
                generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
        [HOSTS, historyStart, new Date(endMs)],
      ),
    ]),
  );
  await timed('probe_samples (15 min)', () =>
    db.sql.query(
      `INSERT INTO probe_samples (host_id, ts, name, target, ok, connect_ms, response_ms, error)
       SELECT h, t, 'nix-users', 'tcp://nix.example:443', true, CASE WHEN h % 2 = 0 THEN 6 ELSE 30 END + random() * 2, 40, NULL
         FROM generate_series(1, $1::int) h, generate_series($2::timestamptz + interval '10 seconds', $3::timestamptz, interval '10 seconds') t`,
      [HOSTS, historyStart, new Date(endMs)],
    ),
  );
  await db.sql.exec('ANALYZE');

  const engine = new FindingsEngine(db);
  const cold = await engine.runCycle(now);
  console.log(`first cycle (parses every inventory once): ${cold.readMs.toFixed(0)} ms read, ${cold.evaluateMs.toFixed(0)} ms rules, ${cold.writeMs.toFixed(0)} ms write; ${cold.opened} opened`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cycles: number[] = [];
  const reads: number[] = [];
  let last = cold;
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, so both see the same machine: the reference query, then a steady-state cycle.
    let started = performance.now();
    // With JIT off, as the cycle's own reads run.
    await Promise.all([
      withoutJit(db.sql, (tx) => tx.query(INPUT_READ_SQL, [windowStart, now])),
      withoutJit(db.sql, (tx) => tx.query(INPUT_READ_PROBES_SQL, [probeStart, now])),
    ]);
    reads.push(performance.now() - started);
    started = performance.now();
    last = await engine.runCycle(now);
    cycles.push(performance.now() - started);
  }
  const cycleMs = median(cycles);
  const inputReadMs = median(reads);
  console.log(`steady cycles: ${cycles.map((c) => c.toFixed(0)).join(', ')} ms; input read: ${reads.map((r) => r.toFixed(0)).join(', ')} ms`);
  console.log(`last cycle: ${last.readMs.toFixed(0)} ms read, ${last.evaluateMs.toFixed(0)} ms rules, ${last.writeMs.toFixed(0)} ms write, ${last.verdicts} verdicts`);
  const result = {
    bench: 'findings',
    hosts: HOSTS,
    rules: FINDING_RULES.length,
    open_findings: cold.opened,
    cycle_ms: Math.round(cycleMs),
    first_cycle_ms: Math.round(cold.readMs + cold.evaluateMs + cold.writeMs),
    input_read_ms: Math.round(inputReadMs),
    ratio: Number((cycleMs / inputReadMs).toFixed(2)),
    evaluate_ms: Math.round(last.evaluateMs),
    target_met: cycleMs < TARGET_CYCLE_MS && cycleMs <= TARGET_RATIO * inputReadMs,
  };
  console.log(JSON.stringify(result));
} finally {
  await db.close();
  if (keep) console.log(`kept database ${name}`);
  else await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
