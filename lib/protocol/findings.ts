import { z } from 'zod';
import { DAY_MS, HOUR_MS } from './time';
import { checkRange, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './read-api/params';

/** Findings as the read API returns them, and the inputs of its write endpoints. Client-safe: zod only. */
export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Most severe first: the order a list of findings is shown in. */
export const SEVERITY_RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

export const FINDING_CATEGORIES = [
  'instruction-sets',
  'threads',
  'openmp',
  'storage',
  'noisy-neighbours',
  'quota',
  'pinning',
  'region',
  'agent',
  'latency',
] as const;
export type FindingCategory = (typeof FINDING_CATEGORIES)[number];

/** `pending`: the condition holds but not yet for the rule's minimum duration; only open findings are shown by default. */
export const FINDING_STATES = ['pending', 'open', 'resolved'] as const;
export type FindingState = (typeof FINDING_STATES)[number];

export interface EvidenceValue {
  label: string;
  value: number | string | boolean | null;
  unit?: string;
}

/** A series the dashboard can chart beside the finding: a read-API metric, optionally one key of it. */
export interface EvidenceSeries {
  metric: string;
  key?: string | null;
}

export interface FindingEvidence {
  values: EvidenceValue[];
  /** The time window the values were measured over; absent for inventory judgements. */
  window?: { from: string; to: string };
  series?: EvidenceSeries[];
  /** A latency regression's likely causes, strongest first (see LatencyCause). */
  causes?: LatencyCause[];
}

export interface FindingAcknowledgement {
  at: string;
  reason: string;
  expiresAt: string | null;
}

export interface Finding {
  id: number;
  ruleId: string;
  title: string;
  category: FindingCategory;
  severity: Severity;
  state: FindingState;
  /** null for a finding about a whole region (e.g. its probe RTT). */
  hostId: number | null;
  hostname: string | null;
  region: string;
  /** What on the host it is about: a process, a disk, a probe target; '' for the host itself. */
  subject: string;
  message: string;
  remedy: string;
  docsPath: string;
  evidence: FindingEvidence;
  value: number | null;
  peakValue: number | null;
  firstSeenAt: string;
  openedAt: string | null;
  resolvedAt: string | null;
  /** When its message, severity or evidence last changed. */
  updatedAt: string;
  acknowledgement: FindingAcknowledgement | null;
  /** What resolving it bought, for a resolved occurrence the findings cycle has begun to measure; else null. */
  effect: FindingEffect | null;
}

/** How a figure moved between the hour before the fix and the hour after it. */
export type EffectVerdict = 'improved' | 'worse' | 'no-change' | 'not-enough-requests';

export interface LatencyEffect {
  /** The latency series (StatsD name or HTTP timing name). */
  name: string;
  before: { p99Ms: number | null; requests: number };
  after: { p99Ms: number | null; requests: number };
  verdict: EffectVerdict;
}

/** One of the rule's own series (its evidence's), averaged over each window. */
export interface GaugeEffect {
  metric: string;
  key: string | null;
  unit: string;
  before: number | null;
  after: number | null;
}

export interface FindingEffect {
  status: 'measuring' | 'measured';
  resolvedAt: string;
  /** Until when it is measuring: the end of the window after the resolution. */
  measureAfter: string;
  /** The inventory change that resolved it (the newest between opening and resolution), or null when none did. */
  change: { at: string; changes: string[] } | null;
  before: { from: string; to: string } | null;
  after: { from: string; to: string } | null;
  latency: LatencyEffect[];
  gauges: GaugeEffect[];
  /** Over its latency series: worse if any got worse, improved if any improved, no-change if all compared held; null while measuring. */
  outcome: EffectVerdict | null;
  /** "Resolved at 14:02 UTC by serve.py OMP_NUM_THREADS 8 → 1: p99 inference.request 182 → 41 ms (9,812 / 10,114 requests)." */
  summary: string;
}

export interface FindingsResponse {
  findings: Finding[];
  /** True when more findings matched than `limit`. */
  truncated: boolean;
}

export interface ThresholdDescription {
  name: string;
  value: number;
  unit: string;
  description: string;
}

export interface FindingRuleDescription {
  id: string;
  title: string;
  category: FindingCategory;
  scope: 'host' | 'region';
  severities: Severity[];
  thresholds: ThresholdDescription[];
  docsPath: string;
}

export const THRESHOLD_SCOPES = ['fleet', 'region', 'labels', 'host'] as const;
export type ThresholdScope = (typeof THRESHOLD_SCOPES)[number];

export interface ThresholdOverride {
  id: number;
  ruleId: string;
  scope: ThresholdScope;
  /** The region name, the host id, or the label selector as JSON; '' for the fleet. */
  selector: string;
  thresholds: Record<string, number>;
  /** A disabled rule raises nothing where this override applies. */
  disabled: boolean;
  updatedAt: string;
}

const ruleIdSchema = z.string().trim().regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/, 'must be a rule id such as cpu.steal-high').max(100);
const labelSelectorSchema = z.record(z.string().min(1).max(100), z.string().max(200)).refine((labels) => Object.keys(labels).length > 0, 'give at least one label');

export const thresholdOverrideInputSchema = z
  .discriminatedUnion('scope', [
    z.object({ scope: z.literal('fleet') }),
    z.object({ scope: z.literal('region'), region: z.string().trim().min(1).max(100) }),
    z.object({ scope: z.literal('labels'), labels: labelSelectorSchema }),
    z.object({ scope: z.literal('host'), hostId: z.number().int().positive().max(2_147_483_647) }),
  ])
  .and(
    z.object({
      ruleId: ruleIdSchema,
      thresholds: z.record(z.string().min(1).max(100), z.number().finite()).default({}),
      disabled: z.boolean().default(false),
    }),
  );
export type ThresholdOverrideInput = z.infer<typeof thresholdOverrideInputSchema>;

export const acknowledgeInputSchema = z.object({
  reason: z.string().trim().min(1, 'say why').max(500),
  /** ISO 8601; the acknowledgement lapses then and the finding shows again. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export type AcknowledgeInput = z.infer<typeof acknowledgeInputSchema>;

export const findingsQuerySchema = z
  .object({
    host: hostIdSchema.optional(),
    region: regionSchema.optional(),
    labels: labelsSchema.optional(),
    rule: ruleIdSchema.optional(),
    severity: z.enum(SEVERITIES).optional(),
    /** Default: open. `all` includes pending and resolved occurrences (the history). */
    state: z.enum(['pending', 'open', 'resolved', 'all']).default('open'),
    /** Occurrences that were unresolved at some time in [from, to). */
    ...rangeShape,
    limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  })
  .superRefine(checkRange);
export type FindingsQuery = z.infer<typeof findingsQuerySchema>;
/** What a client puts in GET /api/v1/findings's query string; `labels` as `key:value,key:value`. */
export type FindingsQueryParams = Partial<Pick<FindingsQuery, 'rule' | 'region' | 'host' | 'severity' | 'state' | 'limit'>> & { labels?: string };

/** One finding per host in the fleet summary: its most severe open one. */
export interface TopFinding {
  ruleId: string;
  title: string;
  severity: Severity;
  message: string;
}

export type FindingCounts = Record<Severity, number>;

export interface ResidencyPolicyView {
  id: number;
  name: string;
  selector: Record<string, string>;
  allowedRegions: string[];
  createdAt: string;
}

export const residencyPolicyInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** Hosts whose labels include all of these; {} means every host. */
  selector: z.record(z.string().min(1).max(100), z.string().max(200)).default({}),
  allowedRegions: z.array(regionSchema).min(1).max(100),
});
export type ResidencyPolicyInput = z.infer<typeof residencyPolicyInputSchema>;

export const findingPathSchema = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** What "latency explained" can name as a p99 regression's cause (docs/findings/latency-explained.md). */
export const LATENCY_CAUSE_KINDS = ['region', 'steal', 'iowait', 'disk-await', 'disk-queue', 'throttling', 'pressure', 'inventory', 'kv-cache', 'queue'] as const;
export type LatencyCauseKind = (typeof LATENCY_CAUSE_KINDS)[number];

export interface LatencyCause {
  kind: LatencyCauseKind;
  /** The device, cgroup path, pressure resource or scraped model server it is about; null for the host as a whole. */
  subject: string | null;
  /** One phrase with the measured values: "steal 0.4 % → 14 % (most on vCPUs 2–3)". */
  summary: string;
  /** The gauge's average over the baseline and over the current range (null for an inventory change). */
  before: number | null;
  after: number | null;
  unit: string;
  /** 0–1: how far it rose past its minimum change, and how closely it moved with p99 minute by minute. */
  strength: number;
  /** Spearman's rank correlation of its per-minute values with per-minute p99; null when not measurable. */
  correlation: number | null;
  /** The read-API series to chart it with. */
  series: EvidenceSeries | null;
}

/**
 * `region-wide`: the host regressed, and the rest of its region as much: not this host. `saturated`: the host
 * regressed with its model server's queue (the agent's --scrape) and nothing on the host moved: more requests than
 * the server can serve, a matter of replicas, not of the host. `kv-pressure`: the host regressed with an LLM engine's KV
 * cache full or preempting (evicted requests are computed again) and nothing on the host moved: a matter of the
 * engine's memory budget and batch size, or of replicas.
 */
export const LATENCY_VERDICTS = ['regressed', 'saturated', 'kv-pressure', 'region-wide', 'recurring-spikes', 'no-regression', 'insufficient-data'] as const;
export type LatencyVerdict = (typeof LATENCY_VERDICTS)[number];

export interface LatencyP99 {
  p99Ms: number | null;
  requests: number;
}

/**
 * Did the rest of the host's region regress at once? `region-p99`: the region's p99 without this host's requests
 * over the same ranges (the read API); `host-count`: how many of the region's other hosts regressed too (the rule).
 */
export type LatencyRegionCheck = {
  region: string;
  otherHosts: number;
  regressed: boolean;
} & (
  | { method: 'region-p99'; baseline: LatencyP99; current: LatencyP99 }
  | { method: 'host-count'; otherHostsRegressed: number }
);

/** GET /api/v1/hosts/:id/latency-explained */
export interface LatencyExplanation {
  hostId: number;
  hostname: string;
  hostRegion: string;
  /** The latency series. */
  name: string;
  range: { from: string; to: string };
  baselineRange: { from: string; to: string };
  verdict: LatencyVerdict;
  regressed: boolean;
  /**
   * The median of the baseline's hourly p99s, and how many of its `ofHours` hours had requests: a baseline of at
   * least an hour judges, so on a new install `hours` says how much the verdict stands on.
   */
  baseline: LatencyP99 & { hours: number; ofHours: number };
  current: LatencyP99;
  /** current ÷ baseline p99. */
  ratio: number | null;
  region: LatencyRegionCheck | null;
  causes: LatencyCause[];
  summary: string;
}

export const latencyExplainedParamsSchema = z
  .object({ name: z.string().trim().min(1).max(200), ...rangeShape })
  .superRefine(checkRange)
  .transform(withDefaultRange(HOUR_MS));

/** GET /api/v1/findings/summary: the same filters as the list, without rule and limit. */
export const findingsSummaryQuerySchema = z
  .object({
    host: hostIdSchema.optional(),
    region: regionSchema.optional(),
    labels: labelsSchema.optional(),
    severity: z.enum(SEVERITIES).optional(),
    state: z.enum(['pending', 'open', 'resolved', 'all']).default('open'),
    ...rangeShape,
  })
  .superRefine(checkRange);
export type FindingsSummaryQuery = z.infer<typeof findingsSummaryQuerySchema>;

/** GET /api/v1/findings/fixed: occurrences resolved in [from, to) (default the last 7 days) and what each fix bought. */
export const fixedFindingsQuerySchema = z
  .object({
    region: regionSchema.optional(),
    labels: labelsSchema.optional(),
    ...rangeShape,
    limit: z.coerce.number().int().min(1).max(1000).default(200),
  })
  .superRefine(checkRange)
  .transform(withDefaultRange(7 * DAY_MS));
export type FixedFindingsQuery = z.infer<typeof fixedFindingsQuerySchema>;

export interface FixedFindingsResponse {
  from: string;
  to: string;
  /** Newest first; each resolved occurrence with its effect (null when it was never measured). */
  findings: Finding[];
  truncated: boolean;
  /** Over every occurrence resolved in the range, not only those returned. */
  totals: { resolved: number; measured: number; improved: number; worse: number; noChange: number; notEnoughRequests: number };
}

/** One rule's findings across the fleet: what the findings page groups by. */
export interface FindingRuleSummary {
  ruleId: string;
  title: string;
  category: FindingCategory;
  counts: FindingCounts;
  total: number;
  hosts: number;
  /** Of `total`, those with a live acknowledgement. */
  acknowledged: number;
  newestAt: string;
}

export interface FindingsSummaryResponse {
  /** Most severe rule first, then the one with most findings. */
  rules: FindingRuleSummary[];
  total: number;
}

/** GET /api/v1/findings/rules/:id: the rule and its doc page's Markdown (rendered by the dashboard, no raw HTML). */
export interface FindingRuleDoc {
  rule: FindingRuleDescription;
  markdown: string;
}

/** The docs in docs/findings/ that explain a method rather than a rule, which rule docs link to. */
export const FINDINGS_TOPIC_DOCS = ['latency-explained', 'fix-effect'] as const;
export type FindingsTopic = (typeof FINDINGS_TOPIC_DOCS)[number];

/** GET /api/v1/findings/docs/:topic */
export interface FindingsTopicDoc {
  topic: FindingsTopic;
  docsPath: string;
  markdown: string;
}
