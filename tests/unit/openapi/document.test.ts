import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { DEFAULT_ALERT_RULES } from '../../../lib/alerts/default-rules';
import { openApiDocument } from '../../../lib/openapi/document';
import { makeReport } from '../../support/report-factory';

const document = openApiDocument();

// The document's `#/components/schemas/X` refs, pointed at one JSON Schema that holds the components as $defs.
const rewritten = JSON.parse(JSON.stringify(document).replaceAll('"#/components/schemas/', '"components#/$defs/')) as typeof document;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'components', $defs: rewritten.components!.schemas! });

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const validators = new Map<string, ValidateFunction>();
function requestBodyValidator(method: Method, urlPath: string): ValidateFunction {
  const key = `${method} ${urlPath}`;
  if (!validators.has(key)) {
    const body = rewritten.paths![urlPath]?.[method]?.requestBody;
    if (!body || !('content' in body)) throw new Error(`${key} documents no request body`);
    validators.set(key, ajv.compile(body.content['application/json']!.schema!));
  }
  return validators.get(key)!;
}

const errorsOf = (validate: ValidateFunction, body: unknown) => (validate(body) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`));

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1 by the specification’s own JSON Schema', async () => {
    const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const withoutInfo: Partial<typeof document> = structuredClone(document);
    delete withoutInfo.info;
    expect((await new Validator().validate(withoutInfo as Record<string, unknown>)).valid).toBe(false);
  });

  test('holds component schemas that compile as JSON Schema 2020-12 in strict mode', () => {
    for (const name of Object.keys(rewritten.components!.schemas!)) {
      expect(() => ajv.compile({ $ref: `components#/$defs/${name}` }), name).not.toThrow();
    }
  });

  test('describes every JSON request and response body with a schema that compiles', () => {
    for (const [urlPath, item] of Object.entries(rewritten.paths!)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        const op = item[method];
        if (!op) continue;
        const bodies = [op.requestBody, ...Object.values(op.responses ?? {})] as ({ content?: Record<string, { schema?: object }> } | undefined)[];
        for (const media of bodies.flatMap((b) => Object.values(b?.content ?? {}))) {
          expect(() => ajv.compile(media.schema!), `${method} ${urlPath}`).not.toThrow();
        }
      }
    }
  });

  test('lists the security schemes: a session or an API token for the dashboard’s API, the host token for ingest, its key for enrollment', () => {
    expect(Object.keys(document.components!.securitySchemes!)).toEqual(['hostToken', 'enrollmentKey', 'session', 'apiToken', 'bootstrapToken']);
    const signedIn = [{ session: [] }, { apiToken: [] }, { bootstrapToken: [] }];
    expect(document.paths!['/api/v1/ingest']!.post!.security).toEqual([{ hostToken: [] }]);
    expect(document.paths!['/api/v1/enroll']!.post!.security).toEqual([{ enrollmentKey: [] }]);
    expect(document.paths!['/api/v1/alerts/rules']!.post!.security).toEqual(signedIn);
    expect(document.paths!['/api/v1/alerts/rules']!.get!.security).toEqual(signedIn);
    expect(document.paths!['/api/v1/admin/enrollment-keys']!.post!.security).toEqual(signedIn);
    expect(document.paths!['/api/v1/auth/login']!.post!.security).toEqual([]);
    expect(Object.keys(document.paths!['/api/v1/alerts/rules']!.post!.responses!)).toEqual(['201', '400', '401', '403', '409', '500', '503']);
  });
});

describe('request bodies the integration tests send validate against the documented schemas', () => {
  const golden = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'tests/fixtures/golden/expected-report.json'), 'utf8')) as unknown;
  const now = Date.now();
  const samples: [Method, string, unknown][] = [
    ['post', '/api/v1/ingest', golden],
    ['post', '/api/v1/ingest', realisticReport(1, now)],
    ['post', '/api/v1/ingest', { reports: [makeReport({ seq: 1, ts: now }), makeReport({ seq: 2, ts: now + 10_000 })] }],
    ['post', '/api/v1/enroll', { hostname: 'h', machineId: null }],
    ['post', '/api/v1/admin/enrollment-keys', { name: 'n', region: 'oslo', labels: { team: 'ml' } }],
    ['post', '/api/v1/admin/enrollment-keys', { name: 'ml oslo', region: 'oslo', labels: {}, expiresAt: '2027-01-01T00:00:00Z' }],
    ...DEFAULT_ALERT_RULES.map((rule): [Method, string, unknown] => ['post', '/api/v1/alerts/rules', rule]),
    ['post', '/api/v1/alerts/rules', { id: 'mine', title: 'Mine', severity: 'info', spec: { metric: { kind: 'series', series: 'cpu_iowait' }, windowMs: 60_000, threshold: 20, clearThreshold: 10 } }],
    ['patch', '/api/v1/alerts/rules/{id}', { severity: 'critical', enabled: false }],
    ['post', '/api/v1/alerts/channels', { kind: 'webhook', name: 'ops', url: 'https://hooks.example/ops', secret: 'signing-secret-0123456789' }],
    ['post', '/api/v1/alerts/channels', { kind: 'slack', name: 'chat', webhookUrl: 'https://hooks.example/slack' }],
    ['patch', '/api/v1/alerts/channels/{id}', { secret: 'another-secret-of-some-length', minSeverity: 'critical' }],
    ['put', '/api/v1/alerts/{id}/acknowledgement', { by: 'oncall', comment: 'looking' }],
    ['post', '/api/v1/alerts/silences', { matchers: [{ name: 'host', value: 'gpu-api' }], endsAt: new Date(now + 3_600_000).toISOString(), comment: 'maintenance', createdBy: 'oncall' }],
    ['put', '/api/v1/findings/thresholds', { scope: 'host', hostId: 3, ruleId: 'cpu.steal-high', thresholds: { warningPct: 20, clearPct: 15 }, disabled: false }],
    ['put', '/api/v1/findings/thresholds', { scope: 'region', region: 'oslo', ruleId: 'cpu.steal-high', thresholds: {}, disabled: true }],
    ['put', '/api/v1/findings/residency-policies', { name: 'eu only', selector: { data: 'eu' }, allowedRegions: ['oslo', 'frankfurt'] }],
    ['put', '/api/v1/findings/{id}/acknowledgement', { reason: 'provider ticket 4711', expiresAt: '2026-12-08T00:00:00Z' }],
  ];

  test.each(samples.map(([method, urlPath, body], i) => [`${i}: ${method} ${urlPath}`, method, urlPath, body] as const))('%s', (_, method, urlPath, body) => {
    expect(errorsOf(requestBodyValidator(method, urlPath), body)).toEqual([]);
  });

  test('and bodies the routes refuse do not', () => {
    const report = makeReport({ seq: 1, ts: now });
    const tooMuchSteal = { ...report, cpu: { ...report.cpu, total: { ...(report.cpu as { total: object }).total, stealPct: 101 } } };
    expect(errorsOf(requestBodyValidator('post', '/api/v1/ingest'), tooMuchSteal)).not.toEqual([]);
    expect(errorsOf(requestBodyValidator('post', '/api/v1/enroll'), { hostname: '' })).not.toEqual([]);
    expect(errorsOf(requestBodyValidator('post', '/api/v1/alerts/channels'), { kind: 'email', name: 'x' })).not.toEqual([]);
  });
});
