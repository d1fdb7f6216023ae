import type { Sql } from '../../db/sql';
import type { AlertRule, AlertSelector } from '../../protocol/alerts';
import { LATENCY_KIND_LABELS, latencyKindOf, type LatencyKind } from '../../protocol/latency-kinds';
import type { SloHost, SloObjective, SloResponse, SloRow } from '../../protocol/read-api/slo';
import { DAY_MS, HOUR_MS } from '../../protocol/time';
import { mergeHistograms, type MergedRow } from '../../series/merge-histograms';
import { coverRange, type Watermarks } from '../../series/resolution';
import { readWatermarks } from '../../series/rollup';
import { keyOf } from '../../sketch';
import type { SketchWire } from '../../protocol';
import { selectsLatency } from '../selector';
import { readEnabledRules } from '../store/rules';

/** The error budget is counted over four weeks, the SRE Workbook's window, from the hourly region rollups. */
export const SLO_BUDGET_WINDOW_MS = 28 * DAY_MS;
const WORST_HOSTS = 3;

// The tag a server names the model with: vLLM's model_name, the OpenTelemetry GenAI attribute, Triton's and StatsD's model.
const MODEL = `coalesce((x.tags::jsonb)->>'model_name', (x.tags::jsonb)->>'gen_ai.request.model', (x.tags::jsonb)->>'model')`;

interface Counted {
  requests: number;
  slow: number;
}

/** Requests in keys wholly above the latency's key are slow: exact up to the sketch's 0.8 %, as the burn alerts count. */
function countSlow(wire: SketchWire, latencyMs: number): Counted {
  const slowKey = keyOf(latencyMs);
  let slow = 0;
  wire.keys.forEach((key, i) => {
    if (key > slowKey) slow += wire.counts[i]!;
  });
  return { requests: wire.count, slow };
}

const burnOf = (c: Counted | undefined, objective: number) => (c && c.requests > 0 ? c.slow / c.requests / (1 - objective) : null);

interface Objective {
  ruleIds: string[];
  objective: number;
  latencyMs: number;
  selector: AlertSelector;
}

/** The latency-burn rules grouped by what they hold the series to: a fast and a slow burn rule are one objective. */
function objectivesOf(rules: readonly AlertRule[]): Objective[] {
  const byKey = new Map<string, Objective>();
  for (const rule of rules) {
    if (rule.spec.metric.kind !== 'latency-burn') continue;
    const { objective, latencyMs } = rule.spec.metric;
    const { regions, services, kinds } = rule.spec.selector;
    const key = JSON.stringify([objective, latencyMs, regions ?? null, services ?? null, kinds ?? null]);
    const found = byKey.get(key);
    if (found) found.ruleIds.push(rule.id);
    else byKey.set(key, { ruleIds: [rule.id], objective, latencyMs, selector: rule.spec.selector });
  }
  return [...byKey.values()];
}

function titleOf(o: Objective): string {
  const what = o.selector.kinds ? o.selector.kinds.map((k: LatencyKind) => LATENCY_KIND_LABELS[k]).join(', ') : 'latency';
  const scope = [o.selector.services?.join(', '), o.selector.regions?.join(', ')].filter(Boolean).join(' in ');
  return `${+(o.objective * 100).toFixed(3)} % of ${what} ≤ ${o.latencyMs} ms${scope ? ` (${scope})` : ''}`;
}

async function mergeByRegion(sql: Sql, fromMs: number, toMs: number, marks: Watermarks): Promise<MergedRow[]> {
  return mergeHistograms(sql, { segments: coverRange(fromMs, toMs, marks), groups: ['h.region', 'x.name', MODEL], where: 'TRUE', params: [], byRegion: true });
}

/** A series without a model tag (or with an empty one) is one row, model null. */
const modelOf = (group: unknown) => (typeof group === 'string' && group !== '' ? group : null);
const rowKey = (region: unknown, series: unknown, model: unknown) => JSON.stringify([region, series, modelOf(model)]);

/**
 * Each objective's state per region, latency series and model: its budget over four weeks, its burn over the last
 * 1 and 6 hours, and the hosts that spent most of it in the last hour. Read from the region rollups and the raw
 * histograms since their watermark, as the burn alerts are.
 */
export async function readSloStatus(sql: Sql, now: Date): Promise<SloResponse> {
  const objectives = objectivesOf(await readEnabledRules(sql));
  if (objectives.length === 0) return { budgetWindowMs: SLO_BUDGET_WINDOW_MS, objectives: [] };
  const toMs = now.getTime();
  const marks = await readWatermarks(sql);
  const [budget, sixHours, hour, hosts] = await Promise.all([
    mergeByRegion(sql, toMs - SLO_BUDGET_WINDOW_MS, toMs, marks),
    mergeByRegion(sql, toMs - 6 * HOUR_MS, toMs, marks),
    mergeByRegion(sql, toMs - HOUR_MS, toMs, marks),
    mergeHistograms(sql, { segments: coverRange(toMs - HOUR_MS, toMs, marks), groups: ['h.region', 'x.name', 'h.id', 'h.hostname'], where: 'TRUE', params: [] }),
  ]);
  const index = (rows: MergedRow[]) => new Map(rows.map((r) => [rowKey(r.groups[0], r.groups[1], r.groups[2]), r.wire]));
  const [sixHoursByKey, hourByKey] = [index(sixHours), index(hour)];

  return {
    budgetWindowMs: SLO_BUDGET_WINDOW_MS,
    objectives: objectives.map((o): SloObjective => {
      const count = (wire: SketchWire | undefined) => (wire ? countSlow(wire, o.latencyMs) : undefined);
      const hostsOf = (region: string, series: string): SloHost[] =>
        hosts
          .filter((h) => h.groups[0] === region && h.groups[1] === series)
          .map((h) => ({ hostId: Number(h.groups[2]), hostname: String(h.groups[3]), ...countSlow(h.wire, o.latencyMs) }))
          .filter((h) => h.slow > 0)
          .map(({ hostId, hostname, requests, slow }) => ({ hostId, hostname, requests, slowShare: slow / requests }))
          .sort((a, b) => b.slowShare - a.slowShare || a.hostname.localeCompare(b.hostname))
          .slice(0, WORST_HOSTS);
      const rows = budget
        .filter((r) => selectsLatency(o.selector, String(r.groups[0]), String(r.groups[1])))
        .map((r): SloRow => {
          const [region, series, model] = [String(r.groups[0]), String(r.groups[1]), modelOf(r.groups[2])];
          const key = rowKey(region, series, model);
          const spent = countSlow(r.wire, o.latencyMs);
          return {
            region,
            series,
            kind: latencyKindOf(series),
            model,
            ...spent,
            budgetLeft: spent.requests > 0 ? 1 - burnOf(spent, o.objective)! : null,
            burn1h: burnOf(count(hourByKey.get(key)), o.objective),
            burn6h: burnOf(count(sixHoursByKey.get(key)), o.objective),
            worstHosts: hostsOf(region, series),
          };
        })
        .sort((a, b) => (a.budgetLeft ?? Infinity) - (b.budgetLeft ?? Infinity) || a.region.localeCompare(b.region) || a.series.localeCompare(b.series));
      return { ruleIds: o.ruleIds, title: titleOf(o), objective: o.objective, latencyMs: o.latencyMs, kinds: o.selector.kinds ?? null, rows };
    }),
  };
}
