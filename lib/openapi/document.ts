import { OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIObject, ParameterObject, ReferenceObject } from 'openapi3-ts/oas31';
import { inventorySchema, reportSchema } from '../protocol';
import { createdEnrollmentKeySchema, enrollmentKeySchema } from '../protocol/admin';
import { alertRuleSchema, alertSchema, alertsResponseSchema, channelSchema, deliveriesResponseSchema, deliverySchema, silenceSchema } from '../protocol/alerts';
import { apiTokenSchema, auditEntrySchema, createdApiTokenSchema, sessionInfoSchema, userSchema } from '../protocol/auth';
import { errorEnvelopeSchema } from '../protocol/errors';
import {
  findingCountsSchema,
  findingEffectSchema,
  findingEvidenceSchema,
  findingRuleDescriptionSchema,
  findingRuleDocSchema,
  findingSchema,
  findingsResponseSchema,
  findingsSummaryResponseSchema,
  findingsTopicDocSchema,
  fixedFindingsResponseSchema,
  latencyCauseSchema,
  latencyExplanationSchema,
  residencyPolicySchema,
  thresholdOverrideSchema,
} from '../protocol/findings';
import { healthReportSchema } from '../protocol/health';
import { hostAnnotationsResponseSchema } from '../protocol/read-api/annotations';
import { compareChoicesSchema, compareResponseSchema } from '../protocol/read-api/compare';
import { demoFleetResponseSchema, fleetHostSchema, fleetPageSchema, sparklinesResponseSchema } from '../protocol/read-api/fleet';
import { hostDetailSchema, hostLatencySeriesResponseSchema } from '../protocol/read-api/host';
import { hostInventoryResponseSchema, inventorySnapshotViewSchema } from '../protocol/read-api/inventory';
import { latencyQuantilesSchema, latencyResponseSchema } from '../protocol/read-api/latency';
import { regionCompareResponseSchema } from '../protocol/read-api/regions';
import { hostSeriesResponseSchema, seriesPointSchema } from '../protocol/read-api/series';
import { sloResponseSchema } from '../protocol/read-api/slo';
import { APP_VERSION } from '../version';
import { SECURITY, SECURITY_SCHEMES } from './access';
import { OPERATIONS, TAGS, type Operation } from './operations';

/** The response schemas named in the document, so each of their uses, nested ones included, becomes a $ref. */
const COMPONENTS = {
  Error: errorEnvelopeSchema,
  Report: reportSchema,
  Inventory: inventorySchema,
  Health: healthReportSchema,
  SessionInfo: sessionInfoSchema,
  User: userSchema,
  ApiToken: apiTokenSchema,
  CreatedApiToken: createdApiTokenSchema,
  AuditEntry: auditEntrySchema,
  EnrollmentKey: enrollmentKeySchema,
  CreatedEnrollmentKey: createdEnrollmentKeySchema,
  Silence: silenceSchema,
  Channel: channelSchema,
  AlertRule: alertRuleSchema,
  Alert: alertSchema,
  AlertsResponse: alertsResponseSchema,
  Delivery: deliverySchema,
  DeliveriesResponse: deliveriesResponseSchema,
  FindingRuleDescription: findingRuleDescriptionSchema,
  FindingRuleDoc: findingRuleDocSchema,
  FindingsTopicDoc: findingsTopicDocSchema,
  ThresholdOverride: thresholdOverrideSchema,
  ResidencyPolicy: residencyPolicySchema,
  FindingCounts: findingCountsSchema,
  FindingEvidence: findingEvidenceSchema,
  FindingEffect: findingEffectSchema,
  LatencyCause: latencyCauseSchema,
  Finding: findingSchema,
  FindingsResponse: findingsResponseSchema,
  FixedFindingsResponse: fixedFindingsResponseSchema,
  FindingsSummaryResponse: findingsSummaryResponseSchema,
  LatencyExplanation: latencyExplanationSchema,
  FleetHost: fleetHostSchema,
  FleetPage: fleetPageSchema,
  DemoFleetResponse: demoFleetResponseSchema,
  SparklinesResponse: sparklinesResponseSchema,
  HostDetail: hostDetailSchema,
  HostLatencySeriesResponse: hostLatencySeriesResponseSchema,
  SeriesPoint: seriesPointSchema,
  HostSeriesResponse: hostSeriesResponseSchema,
  InventorySnapshot: inventorySnapshotViewSchema,
  HostInventoryResponse: hostInventoryResponseSchema,
  HostAnnotationsResponse: hostAnnotationsResponseSchema,
  LatencyQuantiles: latencyQuantilesSchema,
  LatencyResponse: latencyResponseSchema,
  RegionCompareResponse: regionCompareResponseSchema,
  CompareResponse: compareResponseSchema,
  CompareChoices: compareChoicesSchema,
  SloResponse: sloResponseSchema,
};

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const } } };

const ERRORS: Record<number, { description: string; headers?: typeof retryAfter }> = {
  400: { description: '`invalid_payload` (`details` names each field), `invalid_json`, or `invalid_body`.' },
  401: { description: '`unauthorized`: no `Authorization: Bearer`, or a token that is unknown, revoked or replaced.' },
  404: { description: '`not_found`.' },
  409: { description: '`conflict`.' },
  413: { description: '`payload_too_large`: over 1 MiB on the wire or 16 MiB after gunzip.' },
  415: { description: '`unsupported_media_type`: a content-encoding other than gzip/identity, or a content-type other than JSON.' },
  429: { description: '`rate_limited`: over the host’s rate.', headers: retryAfter },
  403: { description: '`forbidden`: refused for what the message says.' },
  500: { description: '`internal`: logged on the server, nothing of it in the answer.' },
  502: { description: '`sso_unavailable` or `sso_failed`: the OpenID provider could not be reached, or its answer failed a check.' },
  503: { description: '`database_unavailable`: PostgreSQL cannot be reached.', headers: retryAfter },
};

const FORBIDDEN: Partial<Record<Operation['access'], string>> = {
  editor: '`forbidden`: the admin API is disabled while INFERWATCH_ADMIN_TOKEN is unset.',
  admin: '`forbidden`: the admin API is disabled while INFERWATCH_ADMIN_TOKEN is unset.',
  enroll: '`forbidden`: the enrollment key is revoked or expired.',
};

/** The error answers an operation can give: from its inputs, its access class and its own list. */
export function errorStatuses(op: Operation): number[] {
  const statuses = new Set<number>(op.errors ?? []);
  if (op.params || op.query || op.body || op.headers) statuses.add(400);
  if (SECURITY[op.access].length > 0) statuses.add(401);
  if (FORBIDDEN[op.access]) statuses.add(403);
  if (op.params) statuses.add(404);
  statuses.add(500);
  if (op.usesDatabase !== false && !op.other?.[503]) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function responsesOf(op: Operation): Record<number, ResponseConfig> {
  const error = { 'application/json': { schema: errorEnvelopeSchema } };
  const responses: Record<number, ResponseConfig> = {
    [op.ok.status]: {
      description: op.ok.description,
      ...(op.ok.schema ? { content: { [op.ok.contentType ?? 'application/json']: { schema: op.ok.schema } } } : {}),
    },
  };
  for (const status of errorStatuses(op)) {
    const known = status === 403 && FORBIDDEN[op.access] ? { description: FORBIDDEN[op.access]! } : ERRORS[status]!;
    responses[status] = { ...known, content: error };
  }
  for (const [status, other] of Object.entries(op.other ?? {})) {
    responses[Number(status)] = { description: other.description, content: { 'application/json': { schema: other.schema } } };
  }
  return responses;
}

function buildDocument(): OpenAPIObject {
  const registry = new OpenAPIRegistry();
  // Named on the very instances the routes parse with (registry.register would name a copy, which needs zod's
  // prototype extended), so every use of them, nested ones included, becomes a $ref.
  for (const [name, schema] of Object.entries(COMPONENTS)) {
    if (!zodToOpenAPIRegistry.has(schema)) zodToOpenAPIRegistry.add(schema, { _internal: { refId: name } });
  }
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) registry.registerComponent('securitySchemes', name, scheme);
  for (const op of OPERATIONS) {
    registry.registerPath({
      method: op.method,
      path: op.path,
      tags: [op.tag],
      summary: op.summary,
      operationId: operationId(op),
      security: SECURITY[op.access],
      request: {
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query as never } : {}),
        ...(op.headers ? { headers: op.headers } : {}),
        ...(op.body ? { body: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
      },
      responses: responsesOf(op),
    });
  }
  const document = new OpenApiGeneratorV31([...registry.definitions, ...Object.values(COMPONENTS)]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'inferwatch',
      version: APP_VERSION,
      description:
        'Latency and host-health monitoring for ML inference fleets. The agent’s wire format is docs/protocol.md; ' +
        'every error answers `{ "error": { "code", "message", "details"? } }`.',
    },
    tags: TAGS,
  });
  commaSeparatedArrays(document);
  return document;
}

/** `get /api/v1/hosts/{id}/series` → `getHostsIdSeries`. */
export function operationId(op: Pick<Operation, 'method' | 'path'>): string {
  const words = op.path
    .replace(/^\/api(\/v1)?/, '')
    .split(/[/{}-]+/)
    .filter(Boolean);
  return op.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** The read API takes lists as `a,b,c` (one query parameter), which OpenAPI calls form style without explode. */
function commaSeparatedArrays(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of [item.get, item.post, item.put, item.patch, item.delete]) {
      for (const param of (op?.parameters ?? []) as (ParameterObject | ReferenceObject)[]) {
        if ('in' in param && param.in === 'query' && param.schema && 'type' in param.schema && param.schema.type === 'array') {
          param.style = 'form';
          param.explode = false;
        }
      }
    }
  }
}

let cached: OpenAPIObject | undefined;

/** The OpenAPI 3.1 document of every route, built once from the schemas the routes parse with. */
export function openApiDocument(): OpenAPIObject {
  cached ??= buildDocument();
  return cached;
}
