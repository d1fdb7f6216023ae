import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { expect, test } from 'vitest';
import { reportSchema } from '../../../lib/protocol';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

test('the esbuild bundle is one file that runs with only node and prints a valid report', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iw-bundle-'));
  const outfile = path.join(dir, 'inferwatch-agent.mjs');
  // Same options as `npm run agent:bundle`, into an empty folder with no node_modules next to it.
  await build({ entryPoints: [path.join(repoRoot, 'agent/cli.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', minify: true, outfile, logLevel: 'silent' });
  const stdout = execFileSync(process.execPath, [outfile, '--once', '--print'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const report = reportSchema.parse(JSON.parse(stdout));
  expect(report.agent.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(report.inventory).toBeDefined();
  expect(execFileSync(process.execPath, [outfile, '--version'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(report.agent.version);
});
