import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createReportSources } from '../../agent/collectors';
import { silentLogger } from '../../agent/log';
import { createReportBuilder, type BuildInput } from '../../agent/report-builder';
import { reportSchema } from '../../lib/protocol';

const goldenDir = path.resolve(import.meta.dirname, '../fixtures/golden');
const expectedFile = path.join(goldenDir, 'expected-report.json');
const rootsOf = (tree: 'before' | 'after') => ({
  procRoot: path.join(goldenDir, tree, 'proc'),
  sysRoot: path.join(goldenDir, tree, 'sys'),
});

/** The fixed clock: readings 1 s apart (as captured by capture.py), the report stamped at a fixed epoch. */
const header = (seq: number, monoMs: number): Omit<BuildInput, 'procRoot' | 'sysRoot'> => ({
  seq,
  tsMs: 1_795_000_000_000,
  monoMs,
  intervalMs: 1000,
  droppedReports: 0,
  spoolBytes: 0,
});

test('one run of the whole report builder over captured /proc and /sys trees matches the golden report', async () => {
  const { sources, close } = await createReportSources(
    {
      watchProcesses: ['sleep'],
      watchPids: [],
      watchLogs: [path.join(goldenDir, 'handmade-inference.log')],
      dataPaths: ['/tmp'],
      probes: [],
      statsdAddr: null,
      httpIntakeAddr: null,
      intervalMs: 1000,
    },
    silentLogger,
    { listen: false },
  );
  // A clock that stands still: every collector takes 0 ms, so agent.collectors is the same on any machine.
  const clock = { monoMs: () => 11_000 };
  const options = { sources, host: { hostname: 'golden-host', machineId: 'golden-machine-id' }, version: '0.0.0-golden', log: silentLogger, reportEveryMs: 1000, clock };
  // The warm-up takes the rate collectors' baseline from the "before" reading; the report covers "after".
  const builder = createReportBuilder(options);
  await builder.warmUp({ monoMs: 10_000, ...rootsOf('before') });
  const report = await builder.build({ ...header(1, 11_000), ...rootsOf('after') });
  await close();

  expect(reportSchema.parse(report)).toEqual(report);
  expect(JSON.stringify(report)).not.toContain('handmade-fake-secret');
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(expectedFile, `${JSON.stringify(report, null, 2)}\n`);
  if (!existsSync(expectedFile)) {
    throw new Error(`${path.relative(process.cwd(), expectedFile)} is missing: write it with \`npm run test:golden:update\` and review it`);
  }
  expect(report).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
});
