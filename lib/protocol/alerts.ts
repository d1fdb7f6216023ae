import { z } from 'zod';
import { SEVERITIES } from './findings';
import { isoTimeSchema, labelValuesSchema } from './response-fields';
import { labelRegexError } from './label-matchers';
import { LATENCY_KINDS } from './latency-kinds';
import { checkRange, hostIdSchema, rangeShape, regionSchema } from './read-api/params';
import { SERIES_METRICS } from './read-api/series';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time';

/** Alert rules, alerts, silences, channels and deliveries as /api/v1/alerts/... serves them. Client-safe: zod only. */
export const ALERT_STATES = ['pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

const SECOND_MS = 1000;
const durationMs = (min: number, max: number) => z.number().int().min(min).max(max);
const labelNameSchema = z.string().trim().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a label name such as region').max(100);
const labelSetSchema = z.record(z.string().min(1).max(100), z.string().max(200));

// ---- rules ----------------------------------------------------------------------------------------------------

/** What a rule measures. Each kind yields one value per alert instance (a host, a disk, a region and service). */
export const alertMetricSchema = z.discriminatedUnion('kind', [
  /** Any stored series, per host (and per device, process, ... for keyed ones), aggregated over the window. */
  z.object({ kind: z.literal('series'), series: z.enum(SERIES_METRICS), aggregation: z.enum(['avg', 'max']).default('avg') }),
  /** A quantile (ms) of a latency series from the merged histograms of a region's hosts over the window. */
  z.object({ kind: z.literal('latency-quantile'), quantile: z.number().gt(0).lt(1) }),
  /**
   * Error-budget burn rate of a latency objective (`objective` of requests at or under `latencyMs`), per region
   * and latency series: the smaller of the rates over the window and over `shortWindowMs` (multi-window alerting).
   */
  z.object({
    kind: z.literal('latency-burn'),
    objective: z.number().min(0.5).max(0.99999),
    latencyMs: z.number().positive().max(600_000),
    shortWindowMs: durationMs(MINUTE_MS, DAY_MS),
    /** Fewer requests than this in the short window judge nothing (a handful of slow requests is not a trend). */
    minRequests: z.number().int().min(1).max(1e9).default(100),
  }),
  /** How many of its own report intervals a host has been silent for. */
  z.object({ kind: z.literal('host-silence'), defaultIntervalMs: durationMs(SECOND_MS, HOUR_MS).default(10_000) }),
  /** 1 while a finding (of `findingRuleId`, or of any rule) at `minSeverity` or worse is open, else 0. */
  z.object({
    kind: z.literal('finding'),
    findingRuleId: z.string().trim().min(1).max(100).optional(),
    minSeverity: z.enum(SEVERITIES).default('critical'),
  }),
]);
export type AlertMetric = z.infer<typeof alertMetricSchema>;

/** Which hosts (host metrics) or regions and latency series (latency metrics) a rule watches; empty: all. */
export const alertSelectorSchema = z.object({
  hostIds: z.array(z.number().int().positive().max(2_147_483_647)).max(10_000).optional(),
  regions: z.array(regionSchema).max(1000).optional(),
  /** Hosts whose labels include all of these. */
  labels: labelSetSchema.optional(),
  /** Latency series names (the service); latency metrics only. */
  services: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  /** What the latency series measure (lib/protocol/latency-kinds.ts); latency metrics only. */
  kinds: z.array(z.enum(LATENCY_KINDS)).min(1).max(LATENCY_KINDS.length).optional(),
});
export type AlertSelector = z.infer<typeof alertSelectorSchema>;

/** Also raise where the value exceeds `factor` × the instance's own median over `baselineMs` and `minValue`. */
export const relativeConditionSchema = z.object({
  factor: z.number().gt(1).max(1000),
  minValue: z.number().min(0),
  baselineMs: durationMs(HOUR_MS, 7 * DAY_MS).default(DAY_MS),
});

export const alertRuleSpecSchema = z
  .object({
    metric: alertMetricSchema,
    selector: alertSelectorSchema.default({}),
    windowMs: durationMs(10 * SECOND_MS, 7 * DAY_MS),
    /** Raised above this; cleared at or below `clearThreshold` (hysteresis: in between, the state holds). */
    threshold: z.number().finite(),
    clearThreshold: z.number().finite(),
    /** How long the value must stay above the threshold before a pending alert fires. */
    forMs: durationMs(0, DAY_MS).default(0),
    /** How long it must stay at or below the clear threshold before a firing alert resolves. */
    clearForMs: durationMs(0, DAY_MS).default(0),
    relative: relativeConditionSchema.optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.clearThreshold > spec.threshold) {
      ctx.addIssue({ code: 'custom', path: ['clearThreshold'], message: 'must be at or below threshold' });
    }
    if (spec.relative && spec.metric.kind !== 'series') {
      ctx.addIssue({ code: 'custom', path: ['relative'], message: 'only series metrics have a baseline' });
    }
    if (spec.metric.kind === 'latency-burn' && spec.metric.shortWindowMs >= spec.windowMs) {
      ctx.addIssue({ code: 'custom', path: ['metric', 'shortWindowMs'], message: 'must be shorter than windowMs' });
    }
    const latencyMetric = spec.metric.kind === 'latency-burn' || spec.metric.kind === 'latency-quantile';
    if (spec.selector.kinds && !latencyMetric) {
      ctx.addIssue({ code: 'custom', path: ['selector', 'kinds'], message: 'only latency metrics select by kind' });
    }
    const hostSelector = spec.selector.hostIds || spec.selector.labels;
    if (hostSelector && (spec.metric.kind === 'latency-burn' || spec.metric.kind === 'latency-quantile')) {
      ctx.addIssue({ code: 'custom', path: ['selector'], message: 'latency metrics select by regions and services' });
    }
  });
export type AlertRuleSpec = z.infer<typeof alertRuleSpecSchema>;

const ruleIdSchema = z.string().trim().regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/, 'must be a rule id such as steal-spike').max(100);
const runbookUrlSchema = z.url({ protocol: /^https?$/ }).max(2000).nullable();

export const alertRuleSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  enabled: z.boolean(),
  /** Shipped with inferwatch: may be edited or disabled, not deleted. */
  builtin: z.boolean(),
  runbookUrl: z.string().nullable(),
  spec: alertRuleSpecSchema,
  createdAt: isoTimeSchema,
  updatedAt: isoTimeSchema,
});
export type AlertRule = z.infer<typeof alertRuleSchema>;

export const alertRuleInputSchema = z.object({
  id: ruleIdSchema,
  title: z.string().trim().min(1).max(200),
  severity: z.enum(SEVERITIES),
  enabled: z.boolean().default(true),
  runbookUrl: runbookUrlSchema.default(null),
  spec: alertRuleSpecSchema,
});
export type AlertRuleInput = z.infer<typeof alertRuleInputSchema>;

export const alertRulePatchSchema = alertRuleInputSchema.omit({ id: true }).partial();
export type AlertRulePatch = z.infer<typeof alertRulePatchSchema>;

export const alertRulePathSchema = z.object({ id: ruleIdSchema });

// ---- alerts ---------------------------------------------------------------------------------------------------

export const alertAcknowledgementSchema = z.strictObject({ at: isoTimeSchema, by: z.string(), comment: z.string() });

export const alertSchema = z.strictObject({
  id: z.number().int(),
  ruleId: z.string(),
  /** The instance within its rule: host, device, region and service, ... as `name=value` pairs. */
  fingerprint: z.string(),
  state: z.enum(ALERT_STATES),
  severity: z.enum(SEVERITIES),
  hostId: z.number().int().nullable(),
  region: z.string().nullable(),
  /** What Alertmanager receives: alertname, host, region, severity, and the instance's own (device, service). */
  labels: labelValuesSchema,
  /** summary, description, runbook_url, and likely_cause when the findings engine could explain a latency alert. */
  annotations: labelValuesSchema,
  value: z.number().nullable(),
  peakValue: z.number().nullable(),
  /** The threshold in force when last evaluated (a relative condition lowers it per instance). */
  threshold: z.number().nullable(),
  pendingAt: isoTimeSchema,
  firedAt: isoTimeSchema.nullable(),
  resolvedAt: isoTimeSchema.nullable(),
  lastEvaluatedAt: isoTimeSchema,
  acknowledgement: alertAcknowledgementSchema.nullable(),
});
export type Alert = z.infer<typeof alertSchema>;

export const alertsResponseSchema = z.strictObject({ alerts: z.array(alertSchema), truncated: z.boolean() });
export type AlertsResponse = z.infer<typeof alertsResponseSchema>;

export const alertsQuerySchema = z
  .object({
    /** Default: active (pending and firing). `resolved` and `all` include the history. */
    state: z.enum(['active', 'pending', 'firing', 'resolved', 'all']).default('active'),
    rule: ruleIdSchema.optional(),
    host: hostIdSchema.optional(),
    region: regionSchema.optional(),
    severity: z.enum(SEVERITIES).optional(),
    /** Occurrences that were pending or firing at some time in [from, to). */
    ...rangeShape,
    limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  })
  .superRefine(checkRange);
export type AlertsQuery = z.infer<typeof alertsQuerySchema>;

/** `/alerts/:id`, `/alerts/silences/:id`, `/alerts/channels/:id`: a numeric id in the path. */
export const idPathSchema = z.object({ id: z.coerce.number().int().positive() });

export const acknowledgeAlertInputSchema = z.object({
  by: z.string().trim().min(1).max(200),
  comment: z.string().trim().max(1000).default(''),
});
export type AcknowledgeAlertInput = z.infer<typeof acknowledgeAlertInputSchema>;

// ---- silences -------------------------------------------------------------------------------------------------

/** Alertmanager's matcher: `name` equal to (or, with isRegex, fully matching) `value`; isEqual false negates. */
const labelMatcherShape = z.object({
  name: labelNameSchema,
  value: z.string().max(500),
  isRegex: z.boolean().default(false),
  isEqual: z.boolean().default(true),
});

/** A matcher as stored: one saved before matchers were RE2 may hold a regex RE2 refuses, and then matches nothing. */
export const storedLabelMatcherSchema = labelMatcherShape;

/** A matcher as written through the API: its regex must be RE2's (lib/protocol/label-matchers), as Alertmanager's. */
export const labelMatcherSchema = labelMatcherShape.superRefine((m, ctx) => {
  const error = m.isRegex ? labelRegexError(m.value) : null;
  if (error) ctx.addIssue({ code: 'custom', path: ['value'], message: `is not an RE2 regular expression: ${error}` });
});
export type LabelMatcher = z.infer<typeof labelMatcherSchema>;

export const SILENCE_STATES = ['pending', 'active', 'expired'] as const;
export type SilenceState = (typeof SILENCE_STATES)[number];

const labelMatcherViewSchema = z.strictObject({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean() });

export const silenceSchema = z.strictObject({
  id: z.number().int(),
  matchers: z.array(labelMatcherViewSchema),
  startsAt: isoTimeSchema,
  endsAt: isoTimeSchema,
  comment: z.string(),
  createdBy: z.string(),
  createdAt: isoTimeSchema,
  state: z.enum(SILENCE_STATES),
});
export type Silence = z.infer<typeof silenceSchema>;

export const silenceInputSchema = z
  .object({
    matchers: z.array(labelMatcherSchema).min(1).max(50),
    startsAt: z.iso.datetime({ offset: true }).optional(),
    endsAt: z.iso.datetime({ offset: true }),
    comment: z.string().trim().min(1, 'say why').max(1000),
    createdBy: z.string().trim().min(1).max(200),
  })
  .superRefine((s, ctx) => {
    if (s.startsAt && Date.parse(s.endsAt) <= Date.parse(s.startsAt)) {
      ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must be after startsAt' });
    }
  });
export type SilenceInput = z.infer<typeof silenceInputSchema>;

export const silencesQuerySchema = z.object({ state: z.enum(['active', 'pending', 'expired', 'all']).default('all') });
export type SilencesQuery = z.infer<typeof silencesQuerySchema>;


// ---- channels -------------------------------------------------------------------------------------------------

export const CHANNEL_KINDS = ['webhook', 'slack', 'alertmanager'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const channelSchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  /** The receiver's URL; null for Slack, whose URL is the secret. */
  url: z.string().nullable(),
  /** The first characters of the secret (signing key, Slack URL, bearer token), never the whole of it. */
  secretPrefix: z.string().nullable(),
  minSeverity: z.enum(SEVERITIES),
  /** Only alerts whose labels match all of these go here; empty: every alert. */
  matchers: z.array(labelMatcherViewSchema),
  enabled: z.boolean(),
  deliveriesTotal: z.number().int(),
  failuresTotal: z.number().int(),
  createdAt: isoTimeSchema,
  updatedAt: isoTimeSchema,
});
export type Channel = z.infer<typeof channelSchema>;

const httpUrlSchema = z.url({ protocol: /^https?$/ }).max(2000);
const channelCommon = {
  name: z.string().trim().min(1).max(100),
  minSeverity: z.enum(SEVERITIES).default('info'),
  matchers: z.array(labelMatcherSchema).max(50).default([]),
  enabled: z.boolean().default(true),
};

export const channelInputSchema = z.discriminatedUnion('kind', [
  /** JSON POSTs signed with `secret` (see docs/alerts.md for the header). */
  z.object({ kind: z.literal('webhook'), url: httpUrlSchema, secret: z.string().min(16, 'use at least 16 characters').max(500), ...channelCommon }),
  /** A Slack-compatible incoming webhook; the URL is the secret. */
  z.object({ kind: z.literal('slack'), webhookUrl: httpUrlSchema, ...channelCommon }),
  /** Alertmanager's base URL (`/api/v2/alerts` is appended); an optional bearer token for a proxy in front. */
  z.object({ kind: z.literal('alertmanager'), url: httpUrlSchema, bearerToken: z.string().min(1).max(2000).optional(), ...channelCommon }),
]);
export type ChannelInput = z.infer<typeof channelInputSchema>;

export const channelPatchSchema = z.object({
  name: channelCommon.name.optional(),
  url: httpUrlSchema.optional(),
  /** The new secret: a webhook's signing key, a Slack URL, or Alertmanager's bearer token (null removes it). */
  secret: z.string().min(1).max(2000).nullable().optional(),
  minSeverity: z.enum(SEVERITIES).optional(),
  matchers: z.array(labelMatcherSchema).max(50).optional(),
  enabled: z.boolean().optional(),
});
export type ChannelPatch = z.infer<typeof channelPatchSchema>;


// ---- deliveries -----------------------------------------------------------------------------------------------

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliverySchema = z.strictObject({
  id: z.number().int(),
  channelId: z.number().int(),
  channelName: z.string(),
  alertId: z.number().int().nullable(),
  /** `event`: one alert's firing or resolved notification; `sync`: Alertmanager's full current state. */
  kind: z.enum(['event', 'sync']),
  event: z.enum(['firing', 'resolved', 'sync']),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  nextAttemptAt: isoTimeSchema,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: isoTimeSchema,
  updatedAt: isoTimeSchema,
  deliveredAt: isoTimeSchema.nullable(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveriesResponseSchema = z.strictObject({ deliveries: z.array(deliverySchema), truncated: z.boolean() });
export type DeliveriesResponse = z.infer<typeof deliveriesResponseSchema>;

export const deliveriesQuerySchema = z.object({
  channel: z.coerce.number().int().positive().optional(),
  alert: z.coerce.number().int().positive().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(500),
});
export type DeliveriesQuery = z.infer<typeof deliveriesQuerySchema>;

// ---- the generic webhook's wire format --------------------------------------------------------------------------

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the channel's secret>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Inferwatch-Signature';
/** The delivery's id: the same on every retry of one notification, so a receiver can drop repeats. */
export const WEBHOOK_DELIVERY_HEADER = 'X-Inferwatch-Delivery';

export const webhookPayloadSchema = z.strictObject({
  version: z.literal(1),
  /** firing or resolved. */
  event: z.enum(['firing', 'resolved']),
  alert: z.strictObject({
    id: z.number().int(),
    ruleId: z.string(),
    severity: z.enum(SEVERITIES),
    labels: labelValuesSchema,
    annotations: labelValuesSchema,
    value: z.number().nullable(),
    threshold: z.number().nullable(),
    startsAt: isoTimeSchema,
    endsAt: isoTimeSchema.nullable(),
    url: z.string(),
  }),
});
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
