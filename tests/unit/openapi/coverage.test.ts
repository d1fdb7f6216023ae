import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { openApiDocument } from '../../../lib/openapi/document';
import { OPERATIONS } from '../../../lib/openapi/operations';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

interface RouteHandler {
  key: string;
  file: string;
  /** The handler's own source, from its `export` to the next one. */
  body: string;
}

/** Every exported HTTP method of every app/**\/route.ts, as `get /api/v1/hosts/{id}`. */
function routeHandlers(): RouteHandler[] {
  const appDir = path.join(process.cwd(), 'app');
  const files = (fs.readdirSync(appDir, { recursive: true }) as string[]).filter((f) => path.basename(f) === 'route.ts');
  return files.flatMap((file) => {
    const urlPath =
      '/' +
      path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => !/^\(.*\)$/.test(segment))
        .map((segment) => segment.replace(/^\[(.+)\]$/, '{$1}'))
        .join('/');
    const source = fs.readFileSync(path.join(appDir, file), 'utf8');
    const parts = source.split(/^(?=export (?:async )?function |export const )/m);
    return parts.flatMap((part) => {
      const method = /^export (?:async )?function (\w+)|^export const (\w+)\s*=/.exec(part);
      const name = method?.[1] ?? method?.[2];
      return METHODS.includes(name as (typeof METHODS)[number])
        ? [{ key: `${name!.toLowerCase()} ${urlPath}`, file: `app/${file}`, body: part }]
        : [];
    });
  });
}

const handlers = routeHandlers();
const documented = Object.entries(openApiDocument().paths ?? {}).flatMap(([p, item]) =>
  Object.keys(item)
    .filter((k) => METHODS.includes(k.toUpperCase() as (typeof METHODS)[number]))
    .map((m) => `${m} ${p}`),
);

describe('the OpenAPI document and the route handlers', () => {
  test('finds the route handlers it compares (a broken scan would pass everything)', () => {
    expect(handlers.length).toBeGreaterThan(40);
    expect(handlers.map((h) => h.key)).toContain('delete /api/v1/alerts/rules/{id}');
  });

  test('documents every route handler under app/', () => {
    const undocumented = handlers.filter((h) => !documented.includes(h.key)).map((h) => `${h.key} (${h.file})`);
    expect(undocumented, 'add these to OPERATIONS in lib/openapi/operations.ts').toEqual([]);
  });

  test('documents no operation that has no route handler', () => {
    const keys = new Set(handlers.map((h) => h.key));
    expect(documented.filter((key) => !keys.has(key))).toEqual([]);
  });

  test('documents each operation once', () => {
    const keys = OPERATIONS.map((op) => `${op.method} ${op.path}`);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  test('gives each operation the access its handler checks', () => {
    const byKey = new Map(handlers.map((h) => [h.key, h]));
    const wrong = OPERATIONS.flatMap((op) => {
      const handler = byKey.get(`${op.method} ${op.path}`);
      if (!handler) return [];
      // A route() declares `role: '…'`; a hand-written handler calls requireRole.
      const checked = new Set([...handler.body.matchAll(/[{,]\s*role: '(\w+)'|requireRole\(request, '(\w+)'\)/g)].map((m) => (m[1] ?? m[2])!));
      if (handler.body.includes('requireReader(')) checked.add('viewer');
      // Until login exists one admin token stands for both roles that write.
      if (handler.body.includes('authorizeAdmin(')) ['editor', 'admin'].forEach((role) => checked.add(role));
      const ok = ['viewer', 'editor', 'admin'].includes(op.access) ? checked.has(op.access) && (op.access !== 'viewer' || checked.size === 1) : checked.size === 0;
      return ok ? [] : [`${op.method} ${op.path} is documented as ${op.access}, its handler checks ${[...checked].join(', ') || 'nothing'}`];
    });
    expect(wrong, 'make `access` in lib/openapi/operations.ts say what the handler checks').toEqual([]);
  });
});
