import type { Inventory, ProcessInventory, RuntimeId } from '../../protocol';
import { defineHostRule, type Verdict } from '../types';
import { fmt } from '../format';
import { KMP_RUNTIMES, RUNTIME_NAMES, envOf, runtimesOf, sizedPools } from '../facts/thread-pools';
import { processLabel, servicesOf } from '../facts/services';

type Env = Readonly<Record<string, string>>;

/** How long a runtime's idle threads keep spinning, and the setting that decided it. */
export interface SpinWait {
  /** ms for KMP_BLOCKTIME, busy-wait iterations for GOMP_SPINCOUNT; Infinity for "never sleep". */
  amount: number;
  /** "KMP_BLOCKTIME unset", "OMP_WAIT_POLICY=ACTIVE (KMP_BLOCKTIME unset)", "GOMP_SPINCOUNT=INFINITE" … */
  decidedBy: string;
}

export const KMP_DEFAULT_BLOCKTIME_MS = 200;
export const GOMP_DEFAULT_SPINS = 300_000;
export const GOMP_ACTIVE_SPINS = 30_000_000_000;

const KMP_UNITS_MS: Record<string, number> = { us: 0.001, ms: 1, '': 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** KMP_BLOCKTIME as libiomp5/libomp parse it: ms by default, a us/ms/s/m/h/d suffix, or "infinite"; else null. */
export function parseKmpBlocktimeMs(value: string): number | null {
  const text = value.trim();
  if (/^infinit/i.test(text)) return Infinity;
  const match = /^(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)?$/i.exec(text);
  return match ? Number(match[1]) * KMP_UNITS_MS[(match[2] ?? '').toLowerCase()]! : null;
}

const GOMP_MULTIPLIERS: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** GOMP_SPINCOUNT as libgomp parses it: INFINITE/INFINITY, or a count with a k/M/G/T multiplier; else null. */
export function parseGompSpincount(value: string): number | null {
  const text = value.trim();
  if (/^infinit[ey]$/i.test(text)) return Infinity;
  const match = /^(\d+)\s*([kMGT]?)$/.exec(text);
  return match ? Number(match[1]) * GOMP_MULTIPLIERS[match[2]!]! : null;
}

const waitPolicy = (env: Env) => env.OMP_WAIT_POLICY?.trim().toUpperCase();

/** libiomp5/libomp: KMP_BLOCKTIME wins; unset, OMP_WAIT_POLICY=ACTIVE means never sleep and PASSIVE sleep at once. */
export function kmpSpinWait(env: Env): SpinWait {
  const blocktime = env.KMP_BLOCKTIME;
  const parsed = blocktime === undefined ? null : parseKmpBlocktimeMs(blocktime);
  if (parsed !== null) return { amount: parsed, decidedBy: `KMP_BLOCKTIME=${blocktime}` };
  // A KMP_BLOCKTIME it cannot parse is still "set": the runtime warns, keeps 200 ms and ignores OMP_WAIT_POLICY.
  if (blocktime !== undefined) return { amount: KMP_DEFAULT_BLOCKTIME_MS, decidedBy: `KMP_BLOCKTIME=${blocktime}, which it ignores` };
  const policy = waitPolicy(env);
  if (policy === 'ACTIVE') return { amount: Infinity, decidedBy: `OMP_WAIT_POLICY=${env.OMP_WAIT_POLICY} and KMP_BLOCKTIME unset` };
  if (policy === 'PASSIVE') return { amount: 0, decidedBy: `OMP_WAIT_POLICY=${env.OMP_WAIT_POLICY} and KMP_BLOCKTIME unset` };
  return { amount: KMP_DEFAULT_BLOCKTIME_MS, decidedBy: 'KMP_BLOCKTIME unset' };
}

/** libgomp: GOMP_SPINCOUNT wins; unset, 0 spins under PASSIVE, 30 billion under ACTIVE, 300,000 otherwise. */
export function gompSpinWait(env: Env): SpinWait {
  const count = env.GOMP_SPINCOUNT;
  const parsed = count === undefined ? null : parseGompSpincount(count);
  if (parsed !== null) return { amount: parsed, decidedBy: `GOMP_SPINCOUNT=${count}` };
  const policy = waitPolicy(env);
  if (policy === 'ACTIVE') return { amount: GOMP_ACTIVE_SPINS, decidedBy: `OMP_WAIT_POLICY=${env.OMP_WAIT_POLICY}` };
  if (policy === 'PASSIVE') return { amount: 0, decidedBy: `OMP_WAIT_POLICY=${env.OMP_WAIT_POLICY}` };
  return { amount: GOMP_DEFAULT_SPINS, decidedBy: 'OMP_WAIT_POLICY and GOMP_SPINCOUNT unset' };
}

const spins = (n: number) => (n >= 1e9 ? `${fmt(n / 1e9)} billion` : n >= 1e6 ? `${fmt(n / 1e6)} million` : n.toLocaleString('en-US'));

interface Spinning {
  runtime: RuntimeId;
  wait: SpinWait;
  text: string;
}

/** The OpenMP runtimes of one process whose idle threads spin longer than the thresholds allow. */
function spinningRuntimes(process: ProcessInventory, inventory: Inventory, t: { maxBlocktimeMs: number; maxGompSpins: number }): Spinning[] {
  const loaded = runtimesOf(process);
  const env = envOf(process);
  const pools = sizedPools(process, inventory);
  if (!loaded || !env || !pools) return [];
  // A pool of one thread has no workers to idle: nothing spins.
  const threaded = (runtime: RuntimeId) => (pools.find((pool) => pool.runtime === runtime)?.threads ?? 0) > 1;
  const found: Spinning[] = [];
  for (const runtime of KMP_RUNTIMES) {
    if (!loaded.has(runtime) || !threaded(runtime)) continue;
    const wait = kmpSpinWait(env);
    if (wait.amount <= t.maxBlocktimeMs) continue;
    const how = Number.isFinite(wait.amount) ? `spin ${fmt(wait.amount)} ms after each parallel region before they sleep` : 'never stop spinning between parallel regions';
    found.push({ runtime, wait, text: `${RUNTIME_NAMES[runtime]} with ${wait.decidedBy}: its idle threads ${how}` });
  }
  if (loaded.has('gnu-openmp') && threaded('gnu-openmp')) {
    const wait = gompSpinWait(env);
    if (wait.amount > t.maxGompSpins) {
      const how = Number.isFinite(wait.amount) ? `spin ${spins(wait.amount)} times before they sleep` : 'never stop spinning';
      found.push({ runtime: 'gnu-openmp', wait, text: `${RUNTIME_NAMES['gnu-openmp']} with ${wait.decidedBy}: its idle threads ${how}` });
    }
  }
  return found;
}

export const spinWait = defineHostRule({
  id: 'openmp.spin-wait',
  title: 'OpenMP threads spin-wait between requests',
  category: 'openmp',
  severities: ['warning'],
  defaults: {
    maxBlocktimeMs: { value: 1, unit: 'ms', description: 'Intel/LLVM OpenMP KMP_BLOCKTIME above which it warns (0, the article\'s, and 1, PyTorch\'s launcher\'s, pass)' },
    maxGompSpins: { value: GOMP_DEFAULT_SPINS, unit: 'spins', description: 'GNU OpenMP spin count above which it warns (libgomp\'s own default passes)' },
  },
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts, t) {
    const inventory = facts.inventory!.data;
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      const worker = workers.find((w) => spinningRuntimes(w, inventory, t).length > 0);
      if (!worker) continue;
      const found = spinningRuntimes(worker, inventory, t);
      const kmp = found.find((f) => f.runtime !== 'gnu-openmp');
      const gomp = found.find((f) => f.runtime === 'gnu-openmp');
      const first = found[0]!;
      verdicts.push({
        subject: name,
        severity: 'warning',
        value: Number.isFinite(first.wait.amount) ? first.wait.amount : null,
        message: `${processLabel(worker)} loads ${found.map((f) => f.text).join('; ')}, holding CPUs that other requests and workers need.`,
        remedy: [
          ...(kmp ? ['KMP_BLOCKTIME=0 (the article\'s setting: threads sleep as soon as a region ends) or KMP_BLOCKTIME=1 (what PyTorch\'s torch.backends.xeon.run_cpu launcher sets); with KMP_BLOCKTIME unset, OMP_WAIT_POLICY=PASSIVE also means 0 for libiomp5.'] : []),
          ...(gomp ? ['For libgomp unset OMP_WAIT_POLICY=ACTIVE and GOMP_SPINCOUNT (its default spins 300,000 times, a few milliseconds at most), or set OMP_WAIT_POLICY=PASSIVE to sleep at once like KMP_BLOCKTIME=0.'] : []),
          'Set it in the service\'s environment (systemd Environment=, docker run -e) and restart the workers.',
        ].join(' '),
        evidence: {
          values: found.map((f) => ({
            label: `${RUNTIME_NAMES[f.runtime]}: ${f.wait.decidedBy}`,
            value: Number.isFinite(f.wait.amount) ? f.wait.amount : 'never sleeps',
            ...(Number.isFinite(f.wait.amount) ? { unit: f.runtime === 'gnu-openmp' ? 'spins' : 'ms' } : {}),
          })),
          series: [{ metric: 'process_cpu', key: name }, { metric: 'process_voluntary_cs', key: name }],
        },
      });
    }
    return verdicts;
  },
});
