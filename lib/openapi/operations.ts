import { z } from 'zod';
import { enrollmentKeyIdSchema, enrollmentKeyInputSchema } from '../auth/enrollment-key-input';
import { enrollRequestSchema, enrollResponseSchema, ingestBatchSchema, ingestResponseSchema, reportSchema } from '../protocol';
import { createdEnrollmentKeySchema, enrollmentKeySchema, reenrollApprovalSchema } from '../protocol/admin';
import {
  acknowledgeAlertInputSchema,
  alertRuleInputSchema,
  alertRulePatchSchema,
  alertRulePathSchema,
  alertsQuerySchema,
  channelInputSchema,
  channelPatchSchema,
  deliveriesQuerySchema,
  idPathSchema,
  silenceInputSchema,
  silencesQuerySchema,
  silenceSchema,
  channelSchema,
  alertRuleSchema,
  alertSchema,
  alertsResponseSchema,
  deliveriesResponseSchema,
} from '../protocol/alerts';
import {
  FINDINGS_TOPIC_DOCS,
  acknowledgeInputSchema,
  findingPathSchema,
  findingsQuerySchema,
  findingsSummaryQuerySchema,
  fixedFindingsQuerySchema,
  latencyExplainedParamsSchema,
  residencyPolicyInputSchema,
  thresholdOverrideInputSchema,
  findingRuleDescriptionSchema,
  findingRuleDocSchema,
  findingsTopicDocSchema,
  thresholdOverrideSchema,
  residencyPolicySchema,
  findingSchema,
  findingsResponseSchema,
  fixedFindingsResponseSchema,
  findingsSummaryResponseSchema,
  latencyExplanationSchema,
} from '../protocol/findings';
import {
  apiTokenInputSchema,
  auditQuerySchema,
  idParamSchema,
  loginInputSchema,
  passwordChangeInputSchema,
  userInputSchema,
  userPatchSchema,
  sessionInfoSchema,
  userSchema,
  createdUserSchema,
  apiTokenSchema,
  createdApiTokenSchema,
  auditEntrySchema,
} from '../protocol/auth';
import { healthReportSchema } from '../protocol/health';
import { hostAnnotationsParamsSchema, hostAnnotationsResponseSchema } from '../protocol/read-api/annotations';
import { compareChoicesParamsSchema, compareParamsSchema, compareResponseSchema, compareChoicesSchema } from '../protocol/read-api/compare';
import {
  fleetParamsSchema,
  sparklineParamsSchema,
  fleetPageSchema,
  demoFleetResponseSchema,
  sparklinesResponseSchema,
} from '../protocol/read-api/fleet';
import { hostLatencySeriesParamsSchema, hostPathSchema, hostDetailSchema, hostLatencySeriesResponseSchema } from '../protocol/read-api/host';
import { hostInventoryParamsSchema, hostInventoryResponseSchema } from '../protocol/read-api/inventory';
import { latencyParamsSchema, latencyResponseSchema } from '../protocol/read-api/latency';
import { regionCompareParamsSchema, regionCompareResponseSchema } from '../protocol/read-api/regions';
import { hostSeriesParamsSchema, hostSeriesResponseSchema } from '../protocol/read-api/series';
import { sloResponseSchema } from '../protocol/read-api/slo';
import type { Access } from './access';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Tag = 'agents' | 'fleet' | 'hosts' | 'findings' | 'alerts' | 'auth' | 'admin' | 'system';

export const TAGS: { name: Tag; description: string }[] = [
  { name: 'agents', description: 'What the agent calls: enrollment and ingest (docs/protocol.md), and its public downloads (install.sh, the bundle, its SHA-256).' },
  { name: 'fleet', description: 'The fleet, its regions and latency across hosts.' },
  { name: 'hosts', description: 'One host: its series, latency, inventory, findings and chart annotations.' },
  { name: 'findings', description: 'Misconfigurations and conditions with remedies, their rules, thresholds and policies.' },
  { name: 'alerts', description: 'Alert rules, alerts, silences, notification channels and deliveries (docs/alerts.md).' },
  { name: 'auth', description: 'Signing in and out, who you are, and your API tokens.' },
  { name: 'admin', description: 'Users, enrollment keys and the audit log.' },
  { name: 'system', description: 'Health, Prometheus metrics and this document.' },
];

export interface Operation {
  method: Method;
  /** OpenAPI's form: `{id}` where the app folder has `[id]`. */
  path: string;
  tag: Tag;
  summary: string;
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodType;
  headers?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: 200 | 201 | 204 | 302 | 303; description: string; schema?: z.ZodType; contentType?: string };
  /** Error answers beyond those every operation of its kind has (see errorStatuses in document.ts). */
  errors?: number[];
  /** false for the few that never touch the database (no 503 `database_unavailable`). */
  usesDatabase?: false;
  /** Answers that are not the error envelope. */
  other?: Record<number, { description: string; schema: z.ZodType }>;
}

// The two findings doc routes parse their path with these same schemas, declared inline in the route files.
const findingRulePathSchema = z.object({ id: z.string().trim().min(1).max(100) });
const findingsTopicPathSchema = z.object({
  topic: z.string().trim().min(1).max(100).meta({ description: `One of ${FINDINGS_TOPIC_DOCS.join(', ')}.` }),
});

const ok = (description: string, schema?: z.ZodType, status: 200 | 201 = 200) => ({ status, description, schema });
const noContent = (description: string) => ({ status: 204 as const, description });
const listOf = (key: string, item: z.ZodType) => z.strictObject({ [key]: z.array(item) });

const enrollmentKeyPathSchema = z.object({ id: enrollmentKeyIdSchema });
const hostFindingsQuerySchema = z.object(findingsQuerySchema.shape).omit({ host: true });

/** Every route handler under app/, as it is. tests/unit/openapi/coverage.test.ts keeps the two lists the same. */
export const OPERATIONS: Operation[] = [
  // ---- agents ----
  {
    method: 'post', path: '/api/v1/enroll', tag: 'agents', access: 'enroll',
    summary:
      'Enroll a host with an enrollment key; answers the host’s own token (a new one on every enrollment). Re-enrolling a known host needs its current token, its machine id or an admin’s approval (409 otherwise); a revoked host answers 403.',
    body: enrollRequestSchema,
    ok: ok('The host, its token (`iwh_…`) and the seq to continue from.', enrollResponseSchema),
    errors: [409, 413, 429],
  },
  {
    method: 'post', path: '/api/v1/ingest', tag: 'agents', access: 'ingest',
    summary: 'Store one report or a batch of up to 1,000 (JSON, optionally gzip); all or nothing, idempotent by (host, seq).',
    headers: z.object({ 'content-encoding': z.enum(['gzip', 'identity']).optional() }),
    body: z.union([reportSchema, ingestBatchSchema]),
    ok: ok('Stored, or already stored (duplicate): every seq of the request is acknowledged.', ingestResponseSchema),
    errors: [409, 413, 415, 429],
  },

  // ---- fleet ----
  {
    method: 'get', path: '/api/v1/fleet', tag: 'fleet', access: 'viewer',
    summary:
      'One page of hosts (filters, sort, page and limit) with the fleet’s tiles. A host’s `p99Ms` (and `sort=p99`) is its worst 1-minute p99 among the rolled-up minutes of the last 15 (the newest one or two are not rolled up yet); the `p99Ms` tile is the p99 of every host’s histograms merged over the 15 minutes.',
    query: fleetParamsSchema,
    ok: ok('The page.', fleetPageSchema),
  },
  {
    method: 'get', path: '/api/v1/fleet/sparklines', tag: 'fleet', access: 'viewer',
    summary: 'The last hour of steal or p99 per host, a point per minute.',
    query: sparklineParamsSchema,
    ok: ok('Points per host id.', sparklinesResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/fleet/demo', tag: 'fleet', access: 'viewer',
    summary: 'How many hosts of the demo fleet (labelled demo=true) there are, and how many still report.',
    ok: ok('The counts; both 0 without demo hosts.', demoFleetResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/latency', tag: 'fleet', access: 'viewer',
    summary: 'Quantiles of one latency series over a host, region, label set or the fleet, from merged histograms.',
    query: latencyParamsSchema,
    ok: ok('The quantiles, and buckets over time when `points` is given.', latencyResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/regions/compare', tag: 'fleet', access: 'viewer',
    summary: 'The regions side by side: steal, iowait, latency, probes and findings.',
    query: regionCompareParamsSchema,
    ok: ok('One entry per region.', regionCompareResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/slo', tag: 'fleet', access: 'viewer',
    summary: 'Every latency objective of the alert rules (TTFT, ITL, request latency) per region, series and model: budget left over 28 days, burn over 1 h and 6 h, the worst hosts.',
    ok: ok('One entry per objective.', sloResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/compare', tag: 'fleet', access: 'viewer',
    summary:
      'One metric of many hosts on one time axis, the top `limit` by value. A latency quantile (`latency_p50`, `latency_p95`, `latency_p99`) is taken per minute, as the rollups keep it: `value` is its mean over the range’s minutes with requests (`rank=avg`) or its worst minute (`rank=max`), not the quantile of the whole range; points of one minute are those per-minute quantiles, coarser or finer points the quantile of each bucket’s merged histograms.',
    query: compareParamsSchema,
    ok: ok('The hosts and their points.', compareResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/compare/choices', tag: 'fleet', access: 'viewer',
    summary: 'What the compare page’s pickers offer: regions, latency series, hosts matching `q`.',
    query: compareChoicesParamsSchema,
    ok: ok('The choices.', compareChoicesSchema),
  },

  // ---- hosts ----
  {
    method: 'get', path: '/api/v1/hosts/{id}', tag: 'hosts', access: 'viewer',
    summary: 'The host’s fleet row and its newest inventory snapshot.',
    params: hostPathSchema,
    ok: ok('The host.', hostDetailSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/series', tag: 'hosts', access: 'viewer',
    summary: 'One metric of the host over [from, to), raw or rolled up to fit `maxPoints`.',
    params: hostPathSchema,
    query: hostSeriesParamsSchema,
    ok: ok('The series, one per key (device, CPU, process…).', hostSeriesResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/latency-series', tag: 'hosts', access: 'viewer',
    summary: 'The latency series names the host reported over [from, to), busiest first.',
    params: hostPathSchema,
    query: hostLatencySeriesParamsSchema,
    ok: ok('The names with their request counts.', hostLatencySeriesResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/latency-explained', tag: 'hosts', access: 'viewer',
    summary: 'Did the host’s p99 of `name` regress against the 24 hours before, and why.',
    params: hostPathSchema,
    query: latencyExplainedParamsSchema,
    ok: ok('The verdict and its likely causes, strongest first.', latencyExplanationSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/inventory', tag: 'hosts', access: 'viewer',
    summary: 'The host’s inventory as of `to` and its change history over [from, to).',
    params: hostPathSchema,
    query: hostInventoryParamsSchema,
    ok: ok('The current snapshot and the changes.', hostInventoryResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/annotations', tag: 'hosts', access: 'viewer',
    summary: 'What the host’s charts mark: inventory changes, findings and alerts opening and ending.',
    params: hostPathSchema,
    query: hostAnnotationsParamsSchema,
    ok: ok('The annotations, oldest first.', hostAnnotationsResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/hosts/{id}/findings', tag: 'hosts', access: 'viewer',
    summary: 'The host’s findings, with the filters of GET /api/v1/findings.',
    params: hostPathSchema,
    query: hostFindingsQuerySchema,
    ok: ok('The findings.', findingsResponseSchema),
  },

  // ---- findings ----
  {
    method: 'get', path: '/api/v1/findings', tag: 'findings', access: 'viewer',
    summary: 'Findings by host, region, labels, rule, severity and state (open by default).',
    query: findingsQuerySchema,
    ok: ok('The findings, most severe first.', findingsResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/summary', tag: 'findings', access: 'viewer',
    summary: 'Findings counted per rule, by severity, hosts and acknowledgements.',
    query: findingsSummaryQuerySchema,
    ok: ok('One entry per rule.', findingsSummaryResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/fixed', tag: 'findings', access: 'viewer',
    summary: 'Findings resolved over [from, to) and what each fix bought.',
    query: fixedFindingsQuerySchema,
    ok: ok('The resolved occurrences and totals.', fixedFindingsResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/{id}', tag: 'findings', access: 'viewer',
    summary: 'One finding occurrence.',
    params: findingPathSchema,
    ok: ok('The finding.', findingSchema),
  },
  {
    method: 'put', path: '/api/v1/findings/{id}/acknowledgement', tag: 'findings', access: 'editor',
    summary: 'Acknowledge a finding, optionally until a time.',
    params: findingPathSchema,
    body: acknowledgeInputSchema,
    ok: ok('The acknowledged finding.', findingSchema),
    errors: [409],
  },
  {
    method: 'delete', path: '/api/v1/findings/{id}/acknowledgement', tag: 'findings', access: 'editor',
    summary: 'Withdraw a finding’s acknowledgement.',
    params: findingPathSchema,
    ok: ok('The finding.', findingSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/rules', tag: 'findings', access: 'viewer',
    summary: 'Every findings rule with its default thresholds and doc page.',
    usesDatabase: false,
    ok: ok('The rules.', listOf('rules', findingRuleDescriptionSchema)),
  },
  {
    method: 'get', path: '/api/v1/findings/rules/{id}', tag: 'findings', access: 'viewer',
    summary: 'One rule with its doc page as Markdown.',
    usesDatabase: false,
    params: findingRulePathSchema,
    ok: ok('The rule and its doc.', findingRuleDocSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/docs/{topic}', tag: 'findings', access: 'viewer',
    summary: 'A findings doc that is not a rule’s, as Markdown.',
    usesDatabase: false,
    params: findingsTopicPathSchema,
    ok: ok('The doc.', findingsTopicDocSchema),
  },
  {
    method: 'get', path: '/api/v1/findings/thresholds', tag: 'findings', access: 'viewer',
    summary: 'Threshold overrides (fleet, region, labels, host).',
    ok: ok('The overrides.', listOf('overrides', thresholdOverrideSchema)),
  },
  {
    method: 'put', path: '/api/v1/findings/thresholds', tag: 'findings', access: 'editor',
    summary: 'Create or replace the override of (rule, scope, selector).',
    body: thresholdOverrideInputSchema,
    ok: ok('The override.', thresholdOverrideSchema),
  },
  {
    method: 'delete', path: '/api/v1/findings/thresholds/{id}', tag: 'findings', access: 'editor',
    summary: 'Delete a threshold override.',
    params: findingPathSchema,
    ok: noContent('Deleted.'),
  },
  {
    method: 'get', path: '/api/v1/findings/residency-policies', tag: 'findings', access: 'viewer',
    summary: 'Data residency policies: which regions hosts with given labels may run in.',
    ok: ok('The policies.', listOf('policies', residencyPolicySchema)),
  },
  {
    method: 'put', path: '/api/v1/findings/residency-policies', tag: 'findings', access: 'admin',
    summary: 'Create or replace the policy of that name.',
    body: residencyPolicyInputSchema,
    ok: ok('The policy.', residencyPolicySchema),
  },
  {
    method: 'delete', path: '/api/v1/findings/residency-policies/{id}', tag: 'findings', access: 'admin',
    summary: 'Delete a residency policy.',
    params: findingPathSchema,
    ok: noContent('Deleted.'),
  },

  // ---- alerts ----
  {
    method: 'get', path: '/api/v1/alerts', tag: 'alerts', access: 'viewer',
    summary: 'Alerts: active (pending and firing) by default, or firing, pending, resolved, all.',
    query: alertsQuerySchema,
    ok: ok('The alerts.', alertsResponseSchema),
  },
  {
    method: 'get', path: '/api/v1/alerts/{id}', tag: 'alerts', access: 'viewer',
    summary: 'One alert.',
    params: idPathSchema,
    ok: ok('The alert.', alertSchema),
  },
  {
    method: 'put', path: '/api/v1/alerts/{id}/acknowledgement', tag: 'alerts', access: 'editor',
    summary: 'Acknowledge an unresolved alert.',
    params: idPathSchema,
    body: acknowledgeAlertInputSchema,
    ok: ok('The acknowledged alert.', alertSchema),
    errors: [409],
  },
  {
    method: 'delete', path: '/api/v1/alerts/{id}/acknowledgement', tag: 'alerts', access: 'editor',
    summary: 'Withdraw an alert’s acknowledgement.',
    params: idPathSchema,
    ok: ok('The alert.', alertSchema),
  },
  {
    method: 'get', path: '/api/v1/alerts/rules', tag: 'alerts', access: 'viewer',
    summary: 'Alert rules, shipped and own.',
    ok: ok('The rules.', listOf('rules', alertRuleSchema)),
  },
  {
    method: 'post', path: '/api/v1/alerts/rules', tag: 'alerts', access: 'editor',
    summary: 'Create an alert rule (docs/alerts.md describes the spec).',
    body: alertRuleInputSchema,
    ok: ok('The rule.', alertRuleSchema, 201),
    errors: [409],
  },
  {
    method: 'get', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', access: 'viewer',
    summary: 'One alert rule.',
    params: alertRulePathSchema,
    ok: ok('The rule.', alertRuleSchema),
  },
  {
    method: 'patch', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', access: 'editor',
    summary: 'Change a rule’s title, severity, enabled, runbookUrl or spec (as a whole).',
    params: alertRulePathSchema,
    body: alertRulePatchSchema,
    ok: ok('The rule.', alertRuleSchema),
  },
  {
    method: 'delete', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', access: 'editor',
    summary: 'Delete a rule and its history; shipped rules answer 409 (disable them instead).',
    params: alertRulePathSchema,
    ok: noContent('Deleted.'),
    errors: [409],
  },
  {
    method: 'get', path: '/api/v1/alerts/silences', tag: 'alerts', access: 'viewer',
    summary: 'Silences: active, pending, expired or all (the default).',
    query: silencesQuerySchema,
    ok: ok('The silences.', listOf('silences', silenceSchema)),
  },
  {
    method: 'post', path: '/api/v1/alerts/silences', tag: 'alerts', access: 'editor',
    summary: 'Silence the alerts whose labels match, until `endsAt`.',
    body: silenceInputSchema,
    ok: ok('The silence.', silenceSchema, 201),
  },
  {
    method: 'delete', path: '/api/v1/alerts/silences/{id}', tag: 'alerts', access: 'editor',
    summary: 'Expire a silence now; it stays listed as history.',
    params: idPathSchema,
    ok: ok('The expired silence.', silenceSchema),
  },
  {
    method: 'get', path: '/api/v1/alerts/channels', tag: 'alerts', access: 'editor',
    summary: 'Notification channels, their secrets shown as a prefix only.',
    ok: ok('The channels.', listOf('channels', channelSchema)),
  },
  {
    method: 'post', path: '/api/v1/alerts/channels', tag: 'alerts', access: 'editor',
    summary: 'Create a webhook, Slack or Alertmanager channel.',
    body: channelInputSchema,
    ok: ok('The channel.', channelSchema, 201),
    errors: [409],
  },
  {
    method: 'get', path: '/api/v1/alerts/channels/{id}', tag: 'alerts', access: 'editor',
    summary: 'One channel.',
    params: idPathSchema,
    ok: ok('The channel.', channelSchema),
  },
  {
    method: 'patch', path: '/api/v1/alerts/channels/{id}', tag: 'alerts', access: 'editor',
    summary: 'Change a channel’s name, url, secret, minSeverity, matchers or enabled.',
    params: idPathSchema,
    body: channelPatchSchema,
    ok: ok('The channel.', channelSchema),
    errors: [409],
  },
  {
    method: 'delete', path: '/api/v1/alerts/channels/{id}', tag: 'alerts', access: 'editor',
    summary: 'Delete a channel and its delivery log.',
    params: idPathSchema,
    ok: noContent('Deleted.'),
  },
  {
    method: 'get', path: '/api/v1/alerts/deliveries', tag: 'alerts', access: 'editor',
    summary: 'The delivery log, newest first: attempts, status, last error.',
    query: deliveriesQuerySchema,
    ok: ok('The deliveries.', deliveriesResponseSchema),
  },

  // ---- admin ----
  {
    method: 'get', path: '/api/v1/admin/users', tag: 'admin', access: 'admin',
    summary: 'Users, their roles and how they sign in.',
    ok: ok('The users.', listOf('users', userSchema)),
  },
  {
    method: 'post', path: '/api/v1/admin/users', tag: 'admin', access: 'admin',
    summary: 'Create a user with a password, with one the server generates (`generatePassword`, answered once as `generatedPassword`), or without one: they sign in through the OpenID provider only.',
    body: userInputSchema,
    ok: ok('The user.', createdUserSchema, 201),
    errors: [409],
  },
  {
    method: 'patch', path: '/api/v1/admin/users/{id}', tag: 'admin', access: 'admin',
    summary: 'Change a user’s name, role or password, or disable them; role, password and access changes end their sessions.',
    params: idParamSchema,
    body: userPatchSchema,
    ok: ok('The user.', userSchema),
    errors: [409],
  },
  {
    method: 'get', path: '/api/v1/admin/audit', tag: 'admin', access: 'admin',
    summary: 'The audit log of every write, newest first: who, what, when and from where.',
    query: auditQuerySchema,
    ok: ok('The entries.', listOf('entries', auditEntrySchema)),
  },
  {
    method: 'get', path: '/api/v1/admin/enrollment-keys', tag: 'admin', access: 'admin',
    summary: 'Enrollment keys, without their secret.',
    ok: ok('The keys.', listOf('keys', enrollmentKeySchema)),
  },
  {
    method: 'post', path: '/api/v1/admin/enrollment-keys', tag: 'admin', access: 'admin',
    summary: 'Create an enrollment key bound to a region and labels; the key is in this answer only.',
    body: enrollmentKeyInputSchema,
    ok: ok('The key, with its plaintext.', createdEnrollmentKeySchema, 201),
  },
  {
    method: 'delete', path: '/api/v1/admin/enrollment-keys/{id}', tag: 'admin', access: 'admin',
    summary: 'Revoke an enrollment key; hosts enrolled with it keep their tokens.',
    params: enrollmentKeyPathSchema,
    ok: ok('The revoked key.', enrollmentKeySchema),
  },
  {
    method: 'post', path: '/api/v1/admin/hosts/{id}/reenroll-approval', tag: 'admin', access: 'admin',
    summary: "Let the host's next enrollment through without proof of its token or machine id, once, within 24 h (a reinstalled machine, or a revoked host let back in).",
    params: hostPathSchema,
    ok: ok('Until when the approval holds.', reenrollApprovalSchema),
  },
  {
    method: 'post', path: '/api/v1/admin/hosts/{id}/token-revocation', tag: 'admin', access: 'admin',
    summary: "Stop the host's token at once; the host stays revoked until a re-enrollment is approved.",
    params: hostPathSchema,
    ok: noContent('Revoked.'),
  },

  // ---- auth ----
  {
    method: 'post', path: '/api/v1/auth/login', tag: 'auth', access: 'public',
    summary:
      'Sign in with email and password: a session cookie. After five failed tries an account waits 30 s, then twice as long after each further failure (at most 15 min); an address from which 20 accounts failed without signing in waits the same way. A wait answers 429 with Retry-After and says how long; every refusal is in the audit log.',
    body: loginInputSchema,
    ok: noContent('Signed in: Set-Cookie iw_session.'),
    errors: [401, 429],
  },
  {
    method: 'post', path: '/api/v1/auth/logout', tag: 'auth', access: 'public',
    summary: 'End this browser’s session on the server and clear its cookie.',
    ok: noContent('Signed out.'),
  },
  {
    method: 'get', path: '/api/v1/auth/session', tag: 'auth', access: 'public',
    summary: 'Who the request acts as (null for nobody), and whether the server signs loopback visitors in.',
    ok: ok('The session.', sessionInfoSchema),
  },
  {
    method: 'get', path: '/api/v1/auth/oidc/start', tag: 'auth', access: 'public',
    summary: 'Sign in with SSO: a redirect to the OpenID provider (authorization code with PKCE, state and nonce in a sealed, 10-minute cookie).',
    query: z.object({ next: z.string().optional().meta({ description: 'A path on this server to return to after signing in.' }) }),
    ok: { status: 302, description: 'To the provider’s authorization endpoint; Set-Cookie iw_oidc.' },
    errors: [404, 502],
    usesDatabase: false,
  },
  {
    method: 'get', path: '/api/v1/auth/oidc/callback', tag: 'auth', access: 'public',
    summary: 'Where the OpenID provider returns: checks state, exchanges the code with PKCE, checks the ID token, maps the role claim, signs in.',
    query: z.object({ code: z.string().optional(), state: z.string().optional(), iss: z.string().optional(), error: z.string().optional(), error_description: z.string().optional() }),
    ok: { status: 303, description: 'Signed in: Set-Cookie iw_session, and to `next`.' },
    errors: [403, 404, 409, 502],
  },
  {
    method: 'post', path: '/api/v1/auth/password', tag: 'auth', access: 'viewer',
    summary:
      'Change the signed-in user’s own password, giving the current one (wrong: 403 `wrong_password`, counted like a failed sign-in); the new one as user creation takes it. The user’s other sessions end, this one stays. A user who signs in through SSO only has no password here (409 `sso_only`); API tokens, local sign-in and the bootstrap token are refused (403).',
    body: passwordChangeInputSchema,
    ok: noContent('Changed.'),
    errors: [403, 409, 429],
  },
  {
    method: 'get', path: '/api/v1/auth/tokens', tag: 'auth', access: 'viewer',
    summary: 'The signed-in user’s API tokens, by prefix.',
    ok: ok('The tokens.', listOf('tokens', apiTokenSchema)),
  },
  {
    method: 'post', path: '/api/v1/auth/tokens', tag: 'auth', access: 'viewer',
    summary: 'Make an API token for the signed-in user, acting with at most their role; the token is in this answer only.',
    body: apiTokenInputSchema,
    ok: ok('The token, with its plaintext.', createdApiTokenSchema, 201),
  },
  {
    method: 'delete', path: '/api/v1/auth/tokens/{id}', tag: 'auth', access: 'viewer',
    summary: 'Revoke one of the signed-in user’s API tokens; it stops working at once.',
    params: idParamSchema,
    ok: ok('The revoked token.', apiTokenSchema),
  },

  // ---- agent downloads ----
  {
    method: 'get', path: '/install.sh', tag: 'agents', access: 'public',
    summary: 'The agent installer the Settings one-liner runs (POSIX sh): downloads and verifies the bundle, installs the systemd unit, the key from stdin.',
    usesDatabase: false,
    errors: [503],
    ok: { status: 200, description: 'The script; ETag and `Cache-Control: no-cache`, 304 on a matching If-None-Match.', schema: z.string(), contentType: 'text/x-shellscript; charset=utf-8' },
  },
  {
    method: 'get', path: '/agent/inferwatch-agent.mjs', tag: 'agents', access: 'public',
    summary: 'The single-file agent this server was built with; its SHA-256 in X-Checksum-SHA256 and the ETag.',
    usesDatabase: false,
    errors: [503],
    ok: { status: 200, description: 'The bundle; 304 on a matching If-None-Match. 503 agent_bundle_missing before `npm run build`.', schema: z.string(), contentType: 'text/javascript; charset=utf-8' },
  },
  {
    method: 'get', path: '/agent/inferwatch-agent.mjs.sha256', tag: 'agents', access: 'public',
    summary: 'The bundle’s SHA-256 in `sha256sum` format, which install.sh and `inferwatch-agent --upgrade` check downloads against.',
    usesDatabase: false,
    errors: [503],
    ok: { status: 200, description: '`<hex>  inferwatch-agent.mjs`.', schema: z.string(), contentType: 'text/plain; charset=utf-8' },
  },

  // ---- system ----
  {
    method: 'get', path: '/api/health', tag: 'system', access: 'public',
    summary: 'Whether the server and its database answer (200 ok, 503 degraded, with the same body).',
    ok: ok('Healthy.', healthReportSchema),
    other: { 503: { description: 'The database does not answer.', schema: healthReportSchema } },
  },
  {
    method: 'get', path: '/metrics', tag: 'system', access: 'viewer',
    summary: 'Prometheus text exposition: per-host gauges, rollup lag, findings, alerts, ingest and the process.',
    ok: { status: 200, description: 'Metrics (docs/operations.md lists them).', schema: z.string(), contentType: 'text/plain; version=0.0.4' },
  },
  {
    method: 'get', path: '/api/openapi.json', tag: 'system', access: 'public',
    summary: 'This document.',
    usesDatabase: false,
    ok: ok('OpenAPI 3.1.', z.record(z.string(), z.unknown())),
  },
];
