import { describe, expect, test } from 'vitest';
import type { ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { openApiDocument } from '../../../lib/openapi/document';
import { OPERATIONS } from '../../../lib/openapi/operations';

const document = openApiDocument();
const components = document.components?.schemas ?? {};

/** Each place in a schema that says nothing of its value (`{}`: any JSON), by its path. */
function openPlaces(schema: SchemaObject | ReferenceObject, where: string, seen: Set<string>): string[] {
  if ('$ref' in schema && typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    seen.add(name);
    return openPlaces(components[name]!, name, seen);
  }
  const s = schema as SchemaObject;
  const said = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'].some((k) => k in s);
  const here = said ? [] : [where];
  const nested = [
    ...Object.entries(s.properties ?? {}).flatMap(([name, value]) => openPlaces(value, `${where}.${name}`, seen)),
    ...(s.items ? openPlaces(s.items, `${where}[]`, seen) : []),
    ...(typeof s.additionalProperties === 'object' ? openPlaces(s.additionalProperties, `${where}{}`, seen) : []),
    ...[...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap((alternative, i) => openPlaces(alternative, `${where}|${i}`, seen)),
  ];
  return [...here, ...nested];
}

// What is free-form by design: an audit entry's detail (each action its own), and this document itself.
const FREE_FORM = ['AuditEntry.detail{}', 'get /api/openapi.json{}'];

describe('the response schemas of the OpenAPI document', () => {
  test('every operation with a body to answer names its schema; the rest name none', () => {
    const wrong = OPERATIONS.filter((op) => (op.ok.status === 200 || op.ok.status === 201) !== (op.ok.schema !== undefined)).map(
      (op) => `${op.method} ${op.path} answers ${op.ok.status} ${op.ok.schema ? 'with' : 'without'} a schema`,
    );
    expect(wrong).toEqual([]);
  });

  test('describes every nested object of every JSON answer: no field is left as any JSON', () => {
    const open = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((method) => {
        const responses = (item[method]?.responses ?? {}) as Record<string, ResponseObject>;
        return Object.values(responses).flatMap((response) => {
          const schema = response.content?.['application/json']?.schema;
          return schema ? openPlaces(schema, `${method} ${path}`, new Set()) : [];
        });
      }),
    );
    expect(open, 'the walk reaches the free-form places (a walk that stops early would pass anything)').toEqual(expect.arrayContaining(FREE_FORM));
    expect([...new Set(open)].filter((place) => !FREE_FORM.includes(place))).toEqual([]);
  });
});
