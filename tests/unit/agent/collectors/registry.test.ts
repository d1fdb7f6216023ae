import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createReportSources } from '../../../../agent/collectors';
import type { RegisteredCollector } from '../../../../agent/collectors/registration';
import { COLLECTORS } from '../../../../agent/collectors/registry';
import { silentLogger } from '../../../../agent/log';
import { parseScrapeTarget } from '../../../../agent/scrape/target';
import { collectorRunSchema, MAX_COLLECTORS } from '../../../../lib/protocol';

const AGENT = path.resolve(import.meta.dirname, '../../../../agent');

/** Every agent module that defines a collector, relative to agent/. */
function modulesDefiningCollectors(): string[] {
  return readdirSync(AGENT, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('registration.ts'))
    .filter((file) => readFileSync(path.join(AGENT, file), 'utf8').match(/\bdefineCollector[<(]/))
    .sort();
}

const isRegistration = (value: unknown): value is RegisteredCollector =>
  typeof value === 'object' && value !== null && 'withSource' in value && 'start' in value;

const baseConfig = { watchProcesses: [], watchPids: [], watchLogs: [], dataPaths: [], probes: [], statsdAddr: null, httpIntakeAddr: null, intervalMs: 1000 };

describe('the collector registry', () => {
  test('lists every collector an agent module defines, each once', async () => {
    const defined: RegisteredCollector[] = [];
    for (const file of modulesDefiningCollectors()) {
      const module = (await import(path.join(AGENT, file))) as Record<string, unknown>;
      defined.push(...Object.values(module).filter(isRegistration));
    }
    expect(defined.length).toBeGreaterThanOrEqual(13);
    for (const collector of defined) expect(COLLECTORS.filter((c) => c === collector), collector.name).toHaveLength(1);
    expect(COLLECTORS).toHaveLength(new Set(COLLECTORS).size);
    expect(new Set(COLLECTORS)).toEqual(new Set(defined));
  });

  test('names are unique, fit the wire protocol, and the list fits in one report', () => {
    const names = COLLECTORS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(collectorRunSchema.shape.name.safeParse(name).success, name).toBe(true);
    expect(COLLECTORS.length).toBeLessThanOrEqual(MAX_COLLECTORS);
  });

  test('each says what it reads', () => {
    for (const c of COLLECTORS) expect(c.reads.length, c.name).toBeGreaterThan(0);
  });

  test('the agent runs every registered collector, in the registry order; scrape only with a --scrape target', async () => {
    const plain = await createReportSources(baseConfig, silentLogger, { listen: false });
    expect(plain.sources.collectors.map((c) => c.name)).toEqual(COLLECTORS.map((c) => c.name).filter((name) => name !== 'scrape'));
    await plain.close();

    const scrape = { targets: [parseScrapeTarget('vllm=http://127.0.0.1:8000/metrics', false)], histograms: [], maxSeries: 10, timeoutMs: 100, maxBytes: 1024 };
    const scraping = await createReportSources({ ...baseConfig, scrape }, silentLogger, { listen: false });
    expect(scraping.sources.collectors.map((c) => c.name)).toEqual(COLLECTORS.map((c) => c.name));
    await scraping.close();
  });
});
