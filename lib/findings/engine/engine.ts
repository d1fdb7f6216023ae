import type { Database } from '../../db/open';
import type { Sql } from '../../db/sql';
import { evaluateFindings, type RuleFailure } from './evaluate';
import { LatencyWatch } from './latency-watch';
import { contentKey, planFindingChanges, type WrittenContent } from './lifecycle';
import { InventoryCache } from '../read/facts/inventory-cache';
import { readFleetFacts, readHostFacts, readRegionFacts } from '../read/read-facts';
import { FINDING_RULES } from '../registry';
import { applyFindingChanges, listActiveFindings, type AppliedChanges } from '../store/findings';
import { listThresholdOverrides } from '../store/threshold-overrides';
import { selfLoadOfThisProcess, setAsideSelfLoad, type SelfLoad } from '../self-load';
import type { FleetFacts, Rule } from '../types';

export interface CycleResult extends AppliedChanges {
  hosts: number;
  verdicts: number;
  failures: RuleFailure[];
  /** Time reading inputs, evaluating rules and writing changes. */
  readMs: number;
  evaluateMs: number;
  writeMs: number;
}

export interface FindingsEngineOptions {
  rules?: readonly Rule[];
  windowMs?: number;
  /** What of the server's own machine's load is inferwatch's (the demo's backfill); this process's record by default. */
  selfLoad?: Pick<SelfLoad, 'loadedUntilMs' | 'isThisMachine'>;
}

/**
 * One findings cycle reads every input in a fixed number of queries, runs the pure rules, and writes the
 * difference to the stored findings in one transaction. Cycles of one engine never overlap.
 */
export class FindingsEngine {
  private readonly inventories = new InventoryCache();
  private readonly latency = new LatencyWatch();
  private readonly rules: readonly Rule[];
  private fleet: FleetFacts | null = null;
  /** What this engine last wrote to each unresolved finding, so an unchanged verdict costs no write. */
  private readonly written = new Map<number, WrittenContent>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sql: Sql;

  constructor(
    private readonly db: Pick<Database, 'sql'>,
    private readonly options: FindingsEngineOptions = {},
  ) {
    this.sql = db.sql;
    this.rules = options.rules ?? FINDING_RULES;
  }

  /** Every host and region; or, with `hostIds`, just those hosts (after their inventory changed). */
  runCycle(now: Date, hostIds?: readonly number[]): Promise<CycleResult> {
    const run = this.queue.then(() => this.cycle(now, hostIds));
    this.queue = run.catch(() => {});
    return run;
  }

  private async cycle(now: Date, hostIds?: readonly number[]): Promise<CycleResult> {
    const started = performance.now();
    const [hosts, overrides, active, regions, latency] = await Promise.all([
      readHostFacts(this.sql, { now, hostIds, inventories: this.inventories, windowMs: this.options.windowMs }),
      listThresholdOverrides(this.db),
      listActiveFindings(this.sql, hostIds),
      hostIds ? undefined : readRegionFacts(this.sql, now),
      this.rules.some((r) => r.scope === 'host' && r.needs === 'latency') ? this.latency.read(this.sql, { hostIds }) : new Map(),
    ]);
    for (const facts of hosts) facts.latency = latency.get(facts.host.id) ?? null;
    setAsideSelfLoad(hosts, this.options.selfLoad ?? selfLoadOfThisProcess());
    // A targeted cycle judges "AVX-512 hidden" against the fleet as the last full cycle saw it.
    if (!hostIds || !this.fleet) this.fleet = await readFleetFacts(this.sql, hostIds ? [] : hosts);
    const read = performance.now();

    const evaluation = evaluateFindings({ nowMs: now.getTime(), rules: this.rules, hosts, fleet: this.fleet, regions, overrides, active });
    const changes = planFindingChanges(active, evaluation.verdicts, evaluation.covered, now.getTime(), this.written);
    const evaluated = performance.now();

    const applied = await applyFindingChanges(this.sql, changes, now);
    for (const update of changes.updates) this.written.set(update.id, { key: contentKey(update.verdict, update.peakValue), atMs: now.getTime() });
    for (const id of [...changes.resolves, ...changes.discards]) this.written.delete(id);
    if (!hostIds) {
      const unresolved = new Set(active.map((f) => f.id));
      for (const id of this.written.keys()) if (!unresolved.has(id)) this.written.delete(id);
    }
    const written = performance.now();
    return {
      ...applied,
      hosts: hosts.length,
      verdicts: evaluation.verdicts.length,
      failures: evaluation.failures,
      readMs: read - started,
      evaluateMs: evaluated - read,
      writeMs: written - evaluated,
    };
  }
}
