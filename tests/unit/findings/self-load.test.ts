import { describe, expect, test } from 'vitest';
import { evaluateFindings } from '../../../lib/findings/engine/evaluate';
import { planFindingChanges } from '../../../lib/findings/engine/lifecycle';
import { pressureWithoutLoad } from '../../../lib/findings/rules/cpu.pressure-without-load';
import { SELF_LOAD_SETTLE_MS, SelfLoad, setAsideSelfLoad } from '../../../lib/findings/self-load';
import type { HostFacts } from '../../../lib/findings/types';
import { NOW_MS, WINDOW_MS, cleanWindow, emptyFleet, hostFacts } from '../../support/findings-facts';

const SERVER = { hostname: 'build-box', machineId: '0123456789abcdef0123456789abcdef' };

/** The server's own machine on a 2-core box while the demo backfills: tasks wait for a CPU, the CPUs are half idle. */
const loadedBy = (host: Partial<HostFacts['host']>) =>
  hostFacts({ host: { id: host.id ?? 1, ...host }, window: cleanWindow({ psiCpuSomePct: { avg: 34, max: 61 }, busyPct: { avg: 38, max: 55 } }) });

function clockAt(ms: number) {
  const clock = { nowMs: ms, now: () => clock.nowMs };
  return clock;
}

/** The findings one cycle opens for these hosts, as the engine would (evaluate, then plan against nothing open). */
function opened(hosts: HostFacts[], selfLoad: SelfLoad): string[] {
  setAsideSelfLoad(hosts, selfLoad);
  const evaluation = evaluateFindings({ nowMs: NOW_MS, rules: [pressureWithoutLoad], hosts, fleet: emptyFleet(), overrides: [], active: [] });
  return planFindingChanges([], evaluation.verdicts, evaluation.covered, NOW_MS).inserts.map((i) => `${i.ruleId} on ${hosts.find((h) => h.host.id === i.hostId)!.host.hostname}`);
}

describe('load inferwatch causes on its own machine', () => {
  test('while the demo backfills, the server\'s own machine is not judged; another host with the same numbers is', () => {
    const clock = clockAt(NOW_MS - 10 * 60_000);
    const selfLoad = new SelfLoad(SERVER, clock.now);
    selfLoad.begin();
    clock.nowMs = NOW_MS;
    const hosts = [loadedBy({ id: 1, ...SERVER }), loadedBy({ id: 2, hostname: 'osl-inf-01', machineId: 'f'.repeat(32) })];
    expect(opened(hosts, selfLoad)).toEqual(['cpu.pressure-without-load on osl-inf-01']);
  });

  test('a window that starts less than a settle time after the backfill ended is still not judged; one after it is', () => {
    const clock = clockAt(NOW_MS - 20 * 60_000);
    const selfLoad = new SelfLoad(SERVER, clock.now);
    const end = selfLoad.begin();
    clock.nowMs = NOW_MS - WINDOW_MS - SELF_LOAD_SETTLE_MS + 1;
    end();
    expect(selfLoad.loadedUntilMs()).toBe(NOW_MS - WINDOW_MS + 1);
    expect(opened([loadedBy({ id: 1, ...SERVER })], selfLoad)).toEqual([]);

    const earlier = new SelfLoad(SERVER, clockAt(NOW_MS - WINDOW_MS - SELF_LOAD_SETTLE_MS).now);
    earlier.begin()();
    expect(opened([loadedBy({ id: 1, ...SERVER })], earlier)).toEqual(['cpu.pressure-without-load on build-box']);
  });

  test('with nothing of its own running, its machine is judged like any other', () => {
    expect(opened([loadedBy({ id: 1, ...SERVER })], new SelfLoad(SERVER))).toEqual(['cpu.pressure-without-load on build-box']);
  });

  test('two overlapping loads: judged again only a settle time after the later one ends; ending one twice counts once', () => {
    const clock = clockAt(NOW_MS - 30 * 60_000);
    const selfLoad = new SelfLoad(SERVER, clock.now);
    const first = selfLoad.begin();
    const second = selfLoad.begin();
    first();
    first();
    expect(selfLoad.loadedUntilMs()).toBe(Infinity);
    clock.nowMs = NOW_MS - 20 * 60_000;
    second();
    expect(selfLoad.loadedUntilMs()).toBe(NOW_MS - 20 * 60_000 + SELF_LOAD_SETTLE_MS);
  });

  test('this machine is the host with its machine-id; without one on either side, the host with its hostname', () => {
    const selfLoad = new SelfLoad(SERVER);
    expect(selfLoad.isThisMachine({ hostname: 'renamed', machineId: SERVER.machineId })).toBe(true);
    expect(selfLoad.isThisMachine({ hostname: 'build-box', machineId: 'e'.repeat(32) })).toBe(false);
    expect(selfLoad.isThisMachine({ hostname: 'build-box', machineId: null })).toBe(true);
    const inContainer = new SelfLoad({ hostname: 'build-box', machineId: null });
    expect(inContainer.isThisMachine({ hostname: 'build-box', machineId: 'e'.repeat(32) })).toBe(true);
    expect(inContainer.isThisMachine({ hostname: 'osl-inf-01', machineId: null })).toBe(false);
  });

  test('an open finding of that machine is neither resolved nor updated while it is set aside', () => {
    const selfLoad = new SelfLoad(SERVER);
    selfLoad.begin();
    const hosts = [hostFacts({ host: { id: 1, ...SERVER } })];
    setAsideSelfLoad(hosts, selfLoad);
    const active = [{ id: 5, ruleId: pressureWithoutLoad.id, hostId: 1, region: 'oslo', subject: '', severity: 'warning' as const, state: 'open' as const, peakValue: 30, firstSeenAtMs: NOW_MS - 3_600_000, lastEvaluatedAtMs: NOW_MS - 60_000 }];
    const evaluation = evaluateFindings({ nowMs: NOW_MS, rules: [pressureWithoutLoad], hosts, fleet: emptyFleet(), overrides: [], active });
    expect(planFindingChanges(active, evaluation.verdicts, evaluation.covered, NOW_MS)).toEqual({ inserts: [], updates: [], resolves: [], discards: [] });
  });
});
