import { z } from 'zod';
import { DAY_MS, HOUR_MS } from './time';
import { checkRange, hostIdSchema, labelsSchema, rangeShape, regionSchema, withDefaultRange } from './read-api/params';
import { isoTimeSchema, labelValuesSchema, timeRangeSchema } from './response-fields';

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

export const evidenceValueSchema = z.strictObject({
  label: z.string(),
  value: z.union([z.number(), z.string(), z.boolean()]).nullable(),
  unit: z.string().optional(),
});
export type EvidenceValue = z.infer<typeof evidenceValueSchema>;

/** A series the dashboard can chart beside the finding: a read-API metric, optionally one key of it. */
export const evidenceSeriesSchema = z.strictObject({ metric: z.string(), key: z.string().nullable().optional() });
export type EvidenceSeries = z.infer<typeof evidenceSeriesSchema>;

/** What "latency explained" can name as a p99 regression's cause (docs/findings/latency-explained.md). */
export const LATENCY_CAUSE_KINDS = ['region', 'steal', 'iowait', 'disk-await', 'disk-queue', 'throttling', 'pressure', 'inventory', 'kv-cache', 'queue'] as const;
export type LatencyCauseKind = (typeof LATENCY_CAUSE_KINDS)[number];

export const latencyCauseSchema = z.strictObject({
  kind: z.enum(LATENCY_CAUSE_KINDS),
  /** The device, cgroup path, pressure resource or scraped model server it is about; null for the host as a whole. */
  subject: z.string().nullable(),
  /** One phrase with the measured values: "steal 0.4 % → 14 % (most on vCPUs 2–3)". */
  summary: z.string(),
  /** The gauge's average over the baseline and over the current range (null for an inventory change). */
  before: z.number().nullable(),
  after: z.number().nullable(),
  unit: z.string(),
  /** 0–1: how far it rose past its minimum change, and how closely it moved with p99 minute by minute. */
  strength: z.number(),
  /** Spearman's rank correlation of its per-minute values with per-minute p99; null when not measurable. */
  correlation: z.number().nullable(),
  /** The read-API series to chart it with. */
  series: evidenceSeriesSchema.nullable(),
});
export type LatencyCause = z.infer<typeof latencyCauseSchema>;

export const findingEvidenceSchema = z.strictObject({
  values: z.array(evidenceValueSchema),
  /** The time window the values were measured over; absent for inventory judgements. */
  window: timeRangeSchema.optional(),
  series: z.array(evidenceSeriesSchema).optional(),
  /** A latency regression's likely causes, strongest first (see LatencyCause). */
  causes: z.array(latencyCauseSchema).optional(),
});
export type FindingEvidence = z.infer<typeof findingEvidenceSchema>;

export const findingAcknowledgementSchema = z.strictObject({ at: isoTimeSchema, reason: z.string(), expiresAt: isoTimeSchema.nullable() });

/** How a figure moved between the hour before the fix and the hour after it. */
export const EFFECT_VERDICTS = ['improved', 'worse', 'no-change', 'not-enough-requests'] as const;
export type EffectVerdict = (typeof EFFECT_VERDICTS)[number];

export const latencyP99Schema = z.strictObject({ p99Ms: z.number().nullable(), requests: z.number().int() });
export type LatencyP99 = z.infer<typeof latencyP99Schema>;

export const latencyEffectSchema = z.strictObject({
  /** The latency series (StatsD name or HTTP timing name). */
  name: z.string(),
  before: latencyP99Schema,
  after: latencyP99Schema,
  verdict: z.enum(EFFECT_VERDICTS),
});
export type LatencyEffect = z.infer<typeof latencyEffectSchema>;

/** One of the rule's own series (its evidence's), averaged over each window. */
export const gaugeEffectSchema = z.strictObject({
  metric: z.string(),
  key: z.string().nullable(),
  unit: z.string(),
  before: z.number().nullable(),
  after: z.number().nullable(),
});
export type GaugeEffect = z.infer<typeof gaugeEffectSchema>;

export const findingEffectSchema = z.strictObject({
  status: z.enum(['measuring', 'measured']),
  resolvedAt: isoTimeSchema,
  /** Until when it is measuring: the end of the window after the resolution. */
  measureAfter: isoTimeSchema,
  /** The inventory change that resolved it (the newest between opening and resolution), or null when none did. */
  change: z.strictObject({ at: isoTimeSchema, changes: z.array(z.string()) }).nullable(),
  before: timeRangeSchema.nullable(),
  after: timeRangeSchema.nullable(),
  latency: z.array(latencyEffectSchema),
  gauges: z.array(gaugeEffectSchema),
  /** Over its latency series: worse if any got worse, improved if any improved, no-change if all compared held; null while measuring. */
  outcome: z.enum(EFFECT_VERDICTS).nullable(),
  /** "Resolved at 14:02 UTC by serve.py OMP_NUM_THREADS 8 → 1: p99 inference.request 182 → 41 ms (9,812 / 10,114 requests)." */
  summary: z.string(),
});
export type FindingEffect = z.infer<typeof findingEffectSchema>;

export const findingSchema = z.strictObject({
  id: z.number().int(),
  ruleId: z.string(),
  title: z.string(),
  category: z.enum(FINDING_CATEGORIES),
  severity: z.enum(SEVERITIES),
  state: z.enum(FINDING_STATES),
  /** null for a finding about a whole region (e.g. its probe RTT). */
  hostId: z.number().int().nullable(),
  hostname: z.string().nullable(),
  region: z.string(),
  /** What on the host it is about: a process, a disk, a probe target; '' for the host itself. */
  subject: z.string(),
  message: z.string(),
  remedy: z.string(),
  docsPath: z.string(),
  evidence: findingEvidenceSchema,
  value: z.number().nullable(),
  peakValue: z.number().nullable(),
  firstSeenAt: isoTimeSchema,
  openedAt: isoTimeSchema.nullable(),
  resolvedAt: isoTimeSchema.nullable(),
  /** When its message, severity or evidence last changed. */
  updatedAt: isoTimeSchema,
  acknowledgement: findingAcknowledgementSchema.nullable(),
  /** What resolving it bought, for a resolved occurrence the findings cycle has begun to measure; else null. */
  effect: findingEffectSchema.nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

export const findingsResponseSchema = z.strictObject({
  findings: z.array(findingSchema),
  /** True when more findings matched than `limit`. */
  truncated: z.boolean(),
});
export type FindingsResponse = z.infer<typeof findingsResponseSchema>;

export const thresholdDescriptionSchema = z.strictObject({ name: z.string(), value: z.number(), unit: z.string(), description: z.string() });

export const findingRuleDescriptionSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  category: z.enum(FINDING_CATEGORIES),
  scope: z.enum(['host', 'region']),
  severities: z.array(z.enum(SEVERITIES)),
  thresholds: z.array(thresholdDescriptionSchema),
  docsPath: z.string(),
});
export type FindingRuleDescription = z.infer<typeof findingRuleDescriptionSchema>;

export const THRESHOLD_SCOPES = ['fleet', 'region', 'labels', 'host'] as const;
export type ThresholdScope = (typeof THRESHOLD_SCOPES)[number];

export const thresholdOverrideSchema = z.strictObject({
  id: z.number().int(),
  ruleId: z.string(),
  scope: z.enum(THRESHOLD_SCOPES),
  /** The region name, the host id, or the label selector as JSON; '' for the fleet. */
  selector: z.string(),
  thresholds: z.record(z.string(), z.number()),
  /** A disabled rule raises nothing where this override applies. */
  disabled: z.boolean(),
  updatedAt: isoTimeSchema,
});
export type ThresholdOverride = z.infer<typeof thresholdOverrideSchema>;

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
export const topFindingSchema = z.strictObject({ ruleId: z.string(), title: z.string(), severity: z.enum(SEVERITIES), message: z.string() });
export type TopFinding = z.infer<typeof topFindingSchema>;

export const findingCountsSchema = z.strictObject({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() });
export type FindingCounts = z.infer<typeof findingCountsSchema>;

export const residencyPolicySchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  selector: labelValuesSchema,
  allowedRegions: z.array(z.string()),
  createdAt: isoTimeSchema,
});
export type ResidencyPolicyView = z.infer<typeof residencyPolicySchema>;

export const residencyPolicyInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** Hosts whose labels include all of these; {} means every host. */
  selector: z.record(z.string().min(1).max(100), z.string().max(200)).default({}),
  allowedRegions: z.array(regionSchema).min(1).max(100),
});
export type ResidencyPolicyInput = z.infer<typeof residencyPolicyInputSchema>;

export const findingPathSchema = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * `region-wide`: the host regressed, and the rest of its region as much: not this host. `saturated`: the host
 * regressed with its model server's queue (the agent's --scrape) and nothing on the host moved: more requests than
 * the server can serve, a matter of replicas, not of the host. `kv-pressure`: the host regressed with an LLM engine's KV
 * cache full or preempting (evicted requests are computed again) and nothing on the host moved: a matter of the
 * engine's memory budget and batch size, or of replicas.
 */
export const LATENCY_VERDICTS = ['regressed', 'saturated', 'kv-pressure', 'region-wide', 'recurring-spikes', 'no-regression', 'insufficient-data'] as const;
export type LatencyVerdict = (typeof LATENCY_VERDICTS)[number];

/**
 * Did the rest of the host's region regress at once? `region-p99`: the region's p99 without this host's requests
 * over the same ranges (the read API); `host-count`: how many of the region's other hosts regressed too (the rule).
 */
const regionCheckFields = { region: z.string(), otherHosts: z.number().int(), regressed: z.boolean() };

/**
 * The median of the baseline's hourly p99s, and how many of its `ofHours` hours had requests: a baseline of at
 * least an hour judges, so on a new install `hours` says how much the verdict stands on.
 */
const hourlyBaselineSchema = latencyP99Schema.extend({ hours: z.number().int(), ofHours: z.number().int() });
export type HourlyBaseline = z.infer<typeof hourlyBaselineSchema>;

export const latencyRegionCheckSchema = z.discriminatedUnion('method', [
  z.strictObject({ ...regionCheckFields, method: z.literal('region-p99'), baseline: hourlyBaselineSchema, current: latencyP99Schema }),
  z.strictObject({ ...regionCheckFields, method: z.literal('host-count'), otherHostsRegressed: z.number().int() }),
]);
export type LatencyRegionCheck = z.infer<typeof latencyRegionCheckSchema>;

/** GET /api/v1/hosts/:id/latency-explained */
export const latencyExplanationSchema = z.strictObject({
  hostId: z.number().int(),
  hostname: z.string(),
  hostRegion: z.string(),
  /** The latency series. */
  name: z.string(),
  range: timeRangeSchema,
  baselineRange: timeRangeSchema,
  verdict: z.enum(LATENCY_VERDICTS),
  regressed: z.boolean(),
  baseline: hourlyBaselineSchema,
  current: latencyP99Schema,
  /** current ÷ baseline p99. */
  ratio: z.number().nullable(),
  region: latencyRegionCheckSchema.nullable(),
  causes: z.array(latencyCauseSchema),
  summary: z.string(),
});
export type LatencyExplanation = z.infer<typeof latencyExplanationSchema>;

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

export const fixedFindingsResponseSchema = timeRangeSchema.extend({
  /** Newest first; each resolved occurrence with its effect (null when it was never measured). */
  findings: z.array(findingSchema),
  truncated: z.boolean(),
  /** Over every occurrence resolved in the range, not only those returned. */
  totals: z.strictObject({
    resolved: z.number().int(),
    measured: z.number().int(),
    improved: z.number().int(),
    worse: z.number().int(),
    noChange: z.number().int(),
    notEnoughRequests: z.number().int(),
  }),
});
export type FixedFindingsResponse = z.infer<typeof fixedFindingsResponseSchema>;

/** One rule's findings across the fleet: what the findings page groups by. */
export const findingRuleSummarySchema = z.strictObject({
  ruleId: z.string(),
  title: z.string(),
  category: z.enum(FINDING_CATEGORIES),
  counts: findingCountsSchema,
  total: z.number().int(),
  hosts: z.number().int(),
  /** Of `total`, those with a live acknowledgement. */
  acknowledged: z.number().int(),
  newestAt: isoTimeSchema,
});
export type FindingRuleSummary = z.infer<typeof findingRuleSummarySchema>;

export const findingsSummaryResponseSchema = z.strictObject({
  /** Most severe rule first, then the one with most findings. */
  rules: z.array(findingRuleSummarySchema),
  total: z.number().int(),
});
export type FindingsSummaryResponse = z.infer<typeof findingsSummaryResponseSchema>;

/** GET /api/v1/findings/rules/:id: the rule and its doc page's Markdown (rendered by the dashboard, no raw HTML). */
export const findingRuleDocSchema = z.strictObject({ rule: findingRuleDescriptionSchema, markdown: z.string() });
export type FindingRuleDoc = z.infer<typeof findingRuleDocSchema>;

/** The docs in docs/findings/ that explain a method rather than a rule, which rule docs link to. */
export const FINDINGS_TOPIC_DOCS = ['latency-explained', 'fix-effect'] as const;
export type FindingsTopic = (typeof FINDINGS_TOPIC_DOCS)[number];

/** GET /api/v1/findings/docs/:topic */
export const findingsTopicDocSchema = z.strictObject({ topic: z.enum(FINDINGS_TOPIC_DOCS), docsPath: z.string(), markdown: z.string() });
export type FindingsTopicDoc = z.infer<typeof findingsTopicDocSchema>;
