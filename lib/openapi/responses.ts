import { z } from 'zod';
import type { HealthReport } from '../health';
import type { CreatedEnrollmentKeyView, EnrollmentKeyView, ReenrollApproval } from '../protocol/admin';
import type { ApiTokenView, AuditEntryView, CreatedApiToken, CreatedUser, SessionInfo, UserView } from '../protocol/auth';
import { ROLES } from '../protocol/roles';
import {
  ALERT_STATES,
  CHANNEL_KINDS,
  DELIVERY_STATUSES,
  alertRuleSpecSchema,
  type Alert,
  type AlertRule,
  type Channel,
  type Delivery,
  type Silence,
} from '../protocol/alerts';
import type { ErrorEnvelope } from '../protocol/errors';
import {
  FINDING_CATEGORIES,
  FINDINGS_TOPIC_DOCS,
  LATENCY_VERDICTS,
  SEVERITIES,
  THRESHOLD_SCOPES,
  type FindingRuleDescription,
  type FindingRuleDoc,
  type FindingsTopicDoc,
  type ThresholdOverride,
  type ResidencyPolicyView,
  type Finding,
  type FindingsResponse,
  type FixedFindingsResponse,
  type FindingsSummaryResponse,
  type LatencyExplanation,
} from '../protocol/findings';
import type { HostAnnotationsResponse } from '../protocol/read-api/annotations';
import type { CompareChoices, CompareResponse } from '../protocol/read-api/compare';
import type { DemoFleetResponse, FleetPage, SparklinesResponse } from '../protocol/read-api/fleet';
import type { HostDetail, HostLatencySeriesResponse } from '../protocol/read-api/host';
import type { HostInventoryResponse } from '../protocol/read-api/inventory';
import type { LatencyResponse } from '../protocol/read-api/latency';
import type { RegionCompareResponse } from '../protocol/read-api/regions';
import type { HostSeriesResponse } from '../protocol/read-api/series';

/*
 * Response bodies. The routes answer TypeScript interfaces (lib/protocol), not parsed zod output, so these schemas
 * describe them: `satisfies z.ZodType<T>` makes the compiler check each full schema against its interface, and
 * `outline<T>()` names every top-level field of the larger ones (the compiler asks for each) without typing the
 * nested objects.
 */

const time = z.iso.datetime({ offset: true });
const labels = z.record(z.string(), z.string());
const severity = z.enum(SEVERITIES);

/** A response known by its TypeScript interface: every field named, nested objects left open. */
function outline<T extends object>(typeName: string, where: string) {
  return (fields: { [K in keyof Required<T>]: z.ZodType }) =>
    z.object(fields).meta({ description: `\`${typeName}\` in ${where}: nested objects as the interface there says.` });
}

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ examples: ['invalid_payload', 'unauthorized', 'not_found'] }),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ description: 'The one error shape: `details` names each offending field as a dotted path.' }) satisfies z.ZodType<ErrorEnvelope>;

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  database: z.object({
    kind: z.enum(['server', 'embedded']),
    ok: z.boolean(),
    latencyMs: z.number().nullable(),
    error: z.string().optional(),
  }),
}) satisfies z.ZodType<HealthReport>;

const role = z.enum(ROLES);

export const sessionInfoSchema = z.object({
  principal: z
    .object({ kind: z.enum(['user', 'token', 'bootstrap', 'local']), name: z.string(), email: z.string().nullable(), role })
    .nullable(),
  localSignIn: z.boolean(),
  sso: z.boolean(),
}) satisfies z.ZodType<SessionInfo>;

export const userSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  role,
  password: z.boolean(),
  sso: z.boolean(),
  createdAt: time,
  disabledAt: time.nullable(),
}) satisfies z.ZodType<UserView>;

export const createdUserSchema = userSchema.extend({
  generatedPassword: z.string().optional().meta({ description: 'The password the server generated: in this answer only.' }),
}) satisfies z.ZodType<CreatedUser>;

export const apiTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  tokenPrefix: z.string(),
  role,
  createdAt: time,
  lastUsedAt: time.nullable(),
  expiresAt: time.nullable(),
  revokedAt: time.nullable(),
}) satisfies z.ZodType<ApiTokenView>;

export const createdApiTokenSchema = apiTokenSchema.extend({ token: z.string() }) satisfies z.ZodType<CreatedApiToken>;

export const auditEntrySchema = z.object({
  id: z.number().int(),
  at: time,
  actorKind: z.enum(['user', 'token', 'bootstrap', 'local', 'system', 'anonymous', 'agent']),
  actorName: z.string(),
  action: z.string(),
  target: z.string(),
  ip: z.string(),
  detail: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<AuditEntryView>;

export const reenrollApprovalSchema = z.object({
  hostId: z.number().int(),
  hostname: z.string(),
  region: z.string(),
  approvedUntil: time.meta({ description: 'The one enrollment without proof must come before this.' }),
}) satisfies z.ZodType<ReenrollApproval>;

export const enrollmentKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  tokenPrefix: z.string(),
  region: z.string(),
  labels,
  createdAt: time,
  expiresAt: time.nullable(),
  revokedAt: time.nullable(),
  maxHosts: z.number().int().nullable().meta({ description: 'How many hosts the key may enroll; null: no cap.' }),
}) satisfies z.ZodType<EnrollmentKeyView>;

export const createdEnrollmentKeySchema = enrollmentKeySchema.extend({
  key: z.string().meta({ description: 'The plaintext key (`iwk_…`): shown in this response only.' }),
}) satisfies z.ZodType<CreatedEnrollmentKeyView>;

const labelMatcher = z.object({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean() });

export const silenceSchema = z.object({
  id: z.number().int(),
  matchers: z.array(labelMatcher),
  startsAt: time,
  endsAt: time,
  comment: z.string(),
  createdBy: z.string(),
  createdAt: time,
  state: z.enum(['pending', 'active', 'expired']),
}) satisfies z.ZodType<Silence>;

export const channelSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  url: z.string().nullable(),
  secretPrefix: z.string().nullable(),
  minSeverity: severity,
  matchers: z.array(labelMatcher),
  enabled: z.boolean(),
  deliveriesTotal: z.number().int(),
  failuresTotal: z.number().int(),
  createdAt: time,
  updatedAt: time,
}) satisfies z.ZodType<Channel>;

export const alertRuleSchema = z.object({
  id: z.string(),
  title: z.string(),
  severity,
  enabled: z.boolean(),
  builtin: z.boolean(),
  runbookUrl: z.string().nullable(),
  spec: alertRuleSpecSchema,
  createdAt: time,
  updatedAt: time,
}) satisfies z.ZodType<AlertRule>;

export const alertSchema = z.object({
  id: z.number().int(),
  ruleId: z.string(),
  fingerprint: z.string(),
  state: z.enum(ALERT_STATES),
  severity,
  hostId: z.number().int().nullable(),
  region: z.string().nullable(),
  labels,
  annotations: labels,
  value: z.number().nullable(),
  peakValue: z.number().nullable(),
  threshold: z.number().nullable(),
  pendingAt: time,
  firedAt: time.nullable(),
  resolvedAt: time.nullable(),
  lastEvaluatedAt: time,
  acknowledgement: z.object({ at: time, by: z.string(), comment: z.string() }).nullable(),
}) satisfies z.ZodType<Alert>;

export const deliverySchema = z.object({
  id: z.number().int(),
  channelId: z.number().int(),
  channelName: z.string(),
  alertId: z.number().int().nullable(),
  kind: z.enum(['event', 'sync']),
  event: z.enum(['firing', 'resolved', 'sync']),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  nextAttemptAt: time,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: time,
  updatedAt: time,
  deliveredAt: time.nullable(),
}) satisfies z.ZodType<Delivery>;

export const findingRuleDescriptionSchema = z.object({
  id: z.string(),
  title: z.string(),
  category: z.enum(FINDING_CATEGORIES),
  scope: z.enum(['host', 'region']),
  severities: z.array(severity),
  thresholds: z.array(z.object({ name: z.string(), value: z.number(), unit: z.string(), description: z.string() })),
  docsPath: z.string(),
}) satisfies z.ZodType<FindingRuleDescription>;

export const findingRuleDocSchema = z.object({
  rule: findingRuleDescriptionSchema,
  markdown: z.string(),
}) satisfies z.ZodType<FindingRuleDoc>;

export const findingsTopicDocSchema = z.object({
  topic: z.enum(FINDINGS_TOPIC_DOCS),
  docsPath: z.string(),
  markdown: z.string(),
}) satisfies z.ZodType<FindingsTopicDoc>;

export const thresholdOverrideSchema = z.object({
  id: z.number().int(),
  ruleId: z.string(),
  scope: z.enum(THRESHOLD_SCOPES),
  selector: z.string(),
  thresholds: z.record(z.string(), z.number()),
  disabled: z.boolean(),
  updatedAt: time,
}) satisfies z.ZodType<ThresholdOverride>;

export const residencyPolicySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  selector: labels,
  allowedRegions: z.array(z.string()),
  createdAt: time,
}) satisfies z.ZodType<ResidencyPolicyView>;

const open = z.unknown();
const list = z.array(z.unknown());
const range = { from: time, to: time };

export const findingSchema = outline<Finding>('Finding', 'lib/protocol/findings.ts')({
  id: z.number().int(),
  ruleId: z.string(),
  title: z.string(),
  category: z.enum(FINDING_CATEGORIES),
  severity,
  state: z.enum(['pending', 'open', 'resolved']),
  hostId: z.number().int().nullable(),
  hostname: z.string().nullable(),
  region: z.string(),
  subject: z.string(),
  message: z.string(),
  remedy: z.string(),
  docsPath: z.string(),
  evidence: open,
  value: z.number().nullable(),
  peakValue: z.number().nullable(),
  firstSeenAt: time,
  openedAt: time.nullable(),
  resolvedAt: time.nullable(),
  updatedAt: time,
  acknowledgement: z.object({ at: time, reason: z.string(), expiresAt: time.nullable() }).nullable(),
  effect: open,
});

export const findingsResponseSchema = outline<FindingsResponse>('FindingsResponse', 'lib/protocol/findings.ts')({
  findings: z.array(findingSchema),
  truncated: z.boolean(),
});

export const fixedFindingsResponseSchema = outline<FixedFindingsResponse>('FixedFindingsResponse', 'lib/protocol/findings.ts')({
  ...range,
  findings: z.array(findingSchema),
  truncated: z.boolean(),
  totals: open,
});

export const findingsSummaryResponseSchema = outline<FindingsSummaryResponse>('FindingsSummaryResponse', 'lib/protocol/findings.ts')({
  rules: list,
  total: z.number().int(),
});

export const latencyExplanationSchema = outline<LatencyExplanation>('LatencyExplanation', 'lib/protocol/findings.ts')({
  hostId: z.number().int(),
  hostname: z.string(),
  hostRegion: z.string(),
  name: z.string(),
  range: open,
  baselineRange: open,
  verdict: z.enum(LATENCY_VERDICTS),
  regressed: z.boolean(),
  baseline: open,
  current: open,
  ratio: z.number().nullable(),
  region: open,
  causes: list,
  summary: z.string(),
});

const hostFields = {
  id: z.number().int(),
  hostname: z.string(),
  region: z.string(),
  labels,
  lastSeenAt: time.nullable(),
  agentVersion: z.string().nullable().meta({ description: 'The version its agent sent in its newest report; null until its first report.' }),
  status: z.enum(['ok', 'stale', 'never_reported']),
  latest: open,
  findings: open,
  topFinding: open,
  levels: z.record(z.enum(['stealPct', 'iowaitPct', 'diskQueueDepth']), z.object({ warn: z.number().nullable(), crit: z.number().nullable() })).meta({
    description: 'Where each value turns warning and critical: the thresholds of the findings rule that judges it, with the overrides that apply to this host; null: never.',
  }),
  diskQueueDepth: z.number().nullable().optional(),
  p99Ms: z
    .number()
    .nullable()
    .optional()
    .meta({ description: 'The worst 1-minute p99 (ms) among the rolled-up minutes of the last 15; null without requests.' }),
};

export const fleetPageSchema = outline<FleetPage>('FleetPage', 'lib/protocol/read-api/fleet.ts')({
  generatedAt: time,
  staleAfterMs: z.number().int(),
  hosts: z.array(z.object(hostFields)),
  findings: open,
  pageInfo: open,
  tiles: open,
  regions: z.array(z.string()),
  latencyNames: z.array(z.string()),
});

export const demoFleetResponseSchema = outline<DemoFleetResponse>('DemoFleetResponse', 'lib/protocol/read-api/fleet.ts')({
  hosts: z.number().int().meta({ description: 'Hosts labelled demo=true.' }),
  reporting: z.number().int().meta({ description: 'Those that reported within the stale threshold.' }),
});

export const sparklinesResponseSchema = outline<SparklinesResponse>('SparklinesResponse', 'lib/protocol/read-api/fleet.ts')({
  metric: z.enum(['steal', 'p99']),
  ...range,
  hosts: z.record(z.string(), z.array(z.object({ t: z.number(), v: z.number().nullable() }))),
});

export const hostDetailSchema = outline<HostDetail>('HostDetail', 'lib/protocol/read-api/host.ts')({
  ...hostFields,
  createdAt: time,
  lastReportAt: time.nullable().meta({ description: 'The measured time of its newest stored report, however old; null before its first.' }),
  inventory: open,
  agentAccess: z.object({ tokenRevokedAt: time.nullable(), reenrollApprovedUntil: time.nullable() }),
});

export const hostLatencySeriesResponseSchema = outline<HostLatencySeriesResponse>('HostLatencySeriesResponse', 'lib/protocol/read-api/host.ts')({
  hostId: z.number().int(),
  ...range,
  series: z.array(z.object({ name: z.string(), count: z.number().int() })),
});

const seriesPoint = z.object({ t: z.number(), avg: z.number().nullable(), max: z.number().nullable() });

export const hostSeriesResponseSchema = outline<HostSeriesResponse>('HostSeriesResponse', 'lib/protocol/read-api/series.ts')({
  hostId: z.number().int(),
  metric: z.string(),
  unit: z.string(),
  ...range,
  resolution: z.enum(['raw', '1m', '1h']),
  bucketMs: z.number().int(),
  series: z.array(z.object({ key: z.string().nullable(), points: z.array(seriesPoint) })),
});

export const hostInventoryResponseSchema = outline<HostInventoryResponse>('HostInventoryResponse', 'lib/protocol/read-api/inventory.ts')({
  hostId: z.number().int(),
  ...range,
  current: open,
  changes: z.array(z.object({ takenAt: time, hash: z.string(), changes: z.array(z.string()) })),
  firstSeenAt: time.nullable(),
  truncated: z.boolean(),
});

export const hostAnnotationsResponseSchema = outline<HostAnnotationsResponse>('HostAnnotationsResponse', 'lib/protocol/read-api/annotations.ts')({
  hostId: z.number().int(),
  ...range,
  annotations: list,
  truncated: z.boolean(),
});

export const latencyResponseSchema = outline<LatencyResponse>('LatencyResponse', 'lib/protocol/read-api/latency.ts')({
  scope: open,
  name: z.string(),
  ...range,
  total: open,
  series: open.optional(),
});

export const regionCompareResponseSchema = outline<RegionCompareResponse>('RegionCompareResponse', 'lib/protocol/read-api/regions.ts')({
  ...range,
  regions: list,
});

export const compareResponseSchema = outline<CompareResponse>('CompareResponse', 'lib/protocol/read-api/compare.ts')({
  metric: z.string(),
  unit: z.string(),
  scope: open,
  latency: z.string().nullable(),
  key: z.string().nullable(),
  rank: z.enum(['avg', 'max']).meta({ description: 'For a latency quantile: the mean of its per-minute values (avg) or the worst minute (max).' }),
  ...range,
  resolution: z.enum(['raw', '1m', '1h']),
  bucketMs: z.number().int(),
  matchedHosts: z.number().int(),
  hostsWithData: z.number().int(),
  limit: z.number().int(),
  hosts: list,
});

export const compareChoicesSchema = outline<CompareChoices>('CompareChoices', 'lib/protocol/read-api/compare.ts')({
  regions: z.array(z.string()),
  latencyNames: z.array(z.string()),
  hosts: z.array(z.object({ id: z.number().int(), hostname: z.string(), region: z.string() })),
});
