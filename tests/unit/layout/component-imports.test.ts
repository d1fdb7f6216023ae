import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

// The browser may see only lib/protocol: every type and schema components/ needs from lib lives there.
const ROOT = path.resolve(import.meta.dirname, '../../..');
const ALLOWED = path.join(ROOT, 'lib', 'protocol');

/** Every import specifier of a module: static, type-only, re-exports and dynamic import(). */
function importSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/** Where a specifier points inside the repository, or null for a package. */
function resolveSpecifier(specifier: string, fromFile: string): string | null {
  if (specifier.startsWith('@/')) return path.join(ROOT, specifier.slice(2));
  if (specifier.startsWith('.')) return path.resolve(path.dirname(fromFile), specifier);
  return null;
}

function forbiddenImports(file: string, source: string): string[] {
  return importSpecifiers(source).filter((specifier) => {
    const target = resolveSpecifier(specifier, file);
    if (target === null) return false;
    const inLib = target === path.join(ROOT, 'lib') || target.startsWith(path.join(ROOT, 'lib') + path.sep);
    const inProtocol = target === ALLOWED || target.startsWith(ALLOWED + path.sep);
    return inLib && !inProtocol;
  });
}

function componentFiles(dir = path.join(ROOT, 'components')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return componentFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('components/ imports from lib/ only lib/protocol', () => {
  const file = path.join(ROOT, 'components', 'hooks', 'use-x-query.ts');

  test.each([
    ["import { a } from '@/lib/errors';", ['@/lib/errors']],
    ["import type { FleetSummary } from '@/lib/fleet/fleet-summary';", ['@/lib/fleet/fleet-summary']],
    ["import { getDb } from '../../lib/db';", ['../../lib/db']],
    ["export { x } from '@/lib/series';", ['@/lib/series']],
    ["const m = await import('@/lib/ingest/limits');", ['@/lib/ingest/limits']],
    ["import '@/lib';", ['@/lib']],
    ["import { z } from 'zod';\nimport type { FleetSummary } from '@/lib/protocol/read-api/fleet';", []],
    ["import { pctSchema } from '../../lib/protocol';", []],
    ["import { fetchJson } from '../fetch-json';", []],
    // A folder merely named like the allowed one is still outside it.
    ["import { x } from '@/lib/protocol-extras';", ['@/lib/protocol-extras']],
  ])('%s', (source, expected) => {
    expect(forbiddenImports(file, source)).toEqual(expected);
  });

  test('holds for every file in components/', () => {
    const files = componentFiles();
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((f) =>
      forbiddenImports(f, fs.readFileSync(f, 'utf8')).map((specifier) => `${path.relative(ROOT, f)}: ${specifier}`),
    );
    expect(violations).toEqual([]);
  });
});
