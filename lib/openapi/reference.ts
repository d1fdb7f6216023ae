import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { openApiDocument } from './document';

/** The OpenAPI document as the API page lists it: operations by tag, each type as one short line of text. */
export interface ApiReference {
  title: string;
  version: string;
  groups: { tag: string; description: string; operations: ApiOperationView[] }[];
}

export interface ApiOperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  auth: string[];
  parameters: { name: string; in: string; required: boolean; type: string; description: string | null }[];
  body: string | null;
  responses: { status: string; description: string; type: string | null }[];
}

const SCHEME_LABELS: Record<string, string> = {
  hostToken: 'host token',
  enrollmentKey: 'enrollment key',
  session: 'session',
  apiToken: 'API token',
  bootstrapToken: 'bootstrap token',
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Schema = SchemaObject | ReferenceObject;

const isReference = (schema: Schema): schema is ReferenceObject => typeof schema.$ref === 'string';

/** A schema as a short TypeScript-like type: `Report | { reports: Report[] }`, `"a" | "b"`, `{ name, labels? }`. */
export function typeText(schema: Schema | undefined, depth = 0): string {
  if (!schema) return 'unknown';
  if (isReference(schema)) return schema.$ref.split('/').pop()!;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return [...new Set(alternatives.map((s) => typeText(s, depth)))].join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => typeText(s, depth)).join(' & ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nonNull = types.filter((t) => t !== 'null');
  if (types.length > 0 && nonNull.length === 0) return 'null';
  const nullable = types.includes('null') ? ' | null' : '';
  const type = nonNull[0];
  if (type === 'array') return `${typeText(schema.items, depth + 1)}[]${nullable}`;
  if (type === 'object' || schema.properties) {
    if (!schema.properties) {
      const values = typeof schema.additionalProperties === 'object' ? typeText(schema.additionalProperties, depth + 1) : 'unknown';
      return `Record<string, ${values}>${nullable}`;
    }
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties).map(([name, value]) => {
      const key = required.has(name) ? name : `${name}?`;
      return depth < 1 ? `${key}: ${typeText(value, depth + 1)}` : key;
    });
    return `{ ${fields.join(', ')} }${nullable}`;
  }
  if (type === 'integer' || type === 'number' || type === 'string' || type === 'boolean') return `${type}${nullable}`;
  return 'unknown';
}

function operationView(method: string, path: string, op: OperationObject): ApiOperationView {
  const parameters = ((op.parameters ?? []) as (ParameterObject | ReferenceObject)[]).filter((p): p is ParameterObject => 'in' in p);
  const body = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json']?.schema : undefined;
  return {
    id: op.operationId ?? `${method} ${path}`,
    method: method.toUpperCase(),
    path,
    summary: op.summary ?? '',
    auth: (op.security ?? []).flatMap((requirement) => Object.keys(requirement).map((name) => SCHEME_LABELS[name] ?? name)),
    parameters: parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required ?? false,
      type:
        typeText(p.schema) +
        (p.style === 'form' && p.explode === false ? ' (comma-separated)' : '') +
        (p.schema && !isReference(p.schema) && p.schema.default !== undefined ? ` = ${JSON.stringify(p.schema.default)}` : ''),
      description: p.description ?? null,
    })),
    body: body ? typeText(body) : null,
    responses: Object.entries((op.responses ?? {}) as Record<string, ResponseObject | ReferenceObject>).map(([status, response]) => {
      const content = 'content' in response && response.content ? Object.entries(response.content)[0] : undefined;
      return {
        status,
        description: 'description' in response ? String(response.description) : '',
        type: content ? (content[0].startsWith('application/json') ? typeText(content[1].schema) : content[0]) : null,
      };
    }),
  };
}

export function apiReference(document: OpenAPIObject = openApiDocument()): ApiReference {
  const groups = (document.tags ?? []).map((tag) => ({ tag: tag.name, description: tag.description ?? '', operations: [] as ApiOperationView[] }));
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      groups.find((g) => g.tag === op.tags?.[0])?.operations.push(operationView(method, path, op));
    }
  }
  return { title: document.info.title, version: document.info.version, groups };
}
