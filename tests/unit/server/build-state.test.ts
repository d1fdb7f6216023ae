import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { BUILD_OUTPUTS, isBuildStale, recordBuild } from '@/scripts/build-state.mjs';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

/** A project folder with one source file saved at `sourceAt` and every build output present. */
function project(sourceAt: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'inferwatch-build-state-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'lib'));
  const source = path.join(root, 'lib', 'a.ts');
  fs.writeFileSync(source, 'export {};\n');
  for (const saved of [source, path.dirname(source)]) fs.utimesSync(saved, sourceAt / 1000, sourceAt / 1000);
  for (const output of BUILD_OUTPUTS) {
    fs.mkdirSync(path.dirname(path.join(root, output)), { recursive: true });
    fs.writeFileSync(path.join(root, output), '');
  }
  return root;
}

test('a build that began after the newest source is current', () => {
  const root = project(1_000_000);
  recordBuild(root, 2_000_000);
  expect(isBuildStale(root)).toBe(false);
});

test('a source saved while the build ran counts as newer, though the outputs were written after it', () => {
  const root = project(2_000_500);
  recordBuild(root, 2_000_000);
  expect(isBuildStale(root)).toBe(true);
});

test('a missing output, or no record of a finished build, means build first', () => {
  const root = project(1_000_000);
  expect(isBuildStale(root)).toBe(true);
  recordBuild(root, 2_000_000);
  fs.rmSync(path.join(root, 'dist', 'server.mjs'));
  expect(isBuildStale(root)).toBe(true);
});
