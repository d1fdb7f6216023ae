import { describe, expect, test } from 'vitest';
import type { HostWindow } from '../types';
import { cleanWindow, defaultsOf, diskWindow, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { busiestDisk, iowaitHigh } from './storage.iowait-high';

const t = defaultsOf(iowaitHigh.defaults);
const stat = (avg: number, max = avg * 2) => ({ avg, max });
const SLOW_SDA = diskWindow({ device: 'sda', queueDepth: stat(6.2), readAwaitMs: stat(35.2), utilPct: stat(97) });
const withIowait = (avg: number, patch: Partial<HostWindow> = {}) =>
  hostFacts({ window: cleanWindow({ iowaitPct: stat(avg, avg * 2.2), disks: [diskWindow(), SLOW_SDA], psiIoSomePct: stat(18.5), ...patch }) });
const judge = (avg: number, patch: Partial<HostWindow> = {}, open: string[] = []) => iowaitHigh.evaluate(withIowait(avg, patch), t, ruleContext(open));

describe('storage.iowait-high', () => {
  test('a clean host raises nothing', () => {
    expect(iowaitHigh.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('iowait above 10 % is a warning that names the busiest disk and PSI io', () => {
    const [v] = judge(14.2);
    expect(v).toMatchObject({ severity: 'warning', value: 14.2 });
    expect(v!.message).toBe(
      'iowait averaged 14.2 % of CPU time over 5 min (peak 31.2 %); busiest disk sda (queue 6.2, read await 35.2 ms, utilisation 97 %); PSI io some 18.5 %.',
    );
    expect(v!.evidence.series).toEqual([{ metric: 'cpu_iowait' }, { metric: 'psi_io' }, { metric: 'disk_queue_depth', key: 'sda' }]);
    expect(v!.remedy).toContain('(watch sda)');
  });

  test('iowait above 25 % is critical', () => {
    expect(judge(25.1)[0]!.severity).toBe('critical');
    expect(judge(25)[0]!.severity).toBe('warning');
  });

  test('exactly at the warning threshold does not raise', () => {
    expect(judge(10)).toEqual([]);
    expect(judge(10.1)).toHaveLength(1);
  });

  test('hysteresis: an open finding stays open between the clear and raise thresholds, and clears below', () => {
    expect(judge(8)).toEqual([]);
    expect(judge(8, {}, [''])).toHaveLength(1);
    expect(judge(6.9, {}, [''])).toEqual([]);
  });

  test('without PSI or busy disks the message leaves them out', () => {
    const [v] = judge(12, { psiIoSomePct: null, disks: [diskWindow({ queueDepth: stat(0), utilPct: stat(0) })] });
    expect(v!.message).toBe('iowait averaged 12 % of CPU time over 5 min (peak 26.4 %).');
    expect(v!.evidence.series).toEqual([{ metric: 'cpu_iowait' }, { metric: 'psi_io' }]);
  });

  test('a host without iowait data raises nothing', () => {
    expect(iowaitHigh.evaluate(hostFacts({ window: cleanWindow({ iowaitPct: null }) }), t, ruleContext())).toEqual([]);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(iowaitHigh.evaluate(withIowait(6), { ...t, warningPct: 5, clearPct: 4 }, ruleContext())).toHaveLength(1);
  });
});

describe('busiestDisk', () => {
  test('the most requests in flight wins, then utilisation; idle disks are none', () => {
    const a = diskWindow({ device: 'nvme0n1', queueDepth: stat(9), utilPct: stat(40) });
    const b = diskWindow({ device: 'sda', queueDepth: stat(2), utilPct: stat(99) });
    const c = diskWindow({ device: 'sdb', queueDepth: stat(2), utilPct: stat(50) });
    expect(busiestDisk([b, a, c])?.device).toBe('nvme0n1');
    expect(busiestDisk([c, b])?.device).toBe('sda');
    expect(busiestDisk([diskWindow({ queueDepth: stat(0), utilPct: stat(0) })])).toBeNull();
    expect(busiestDisk([])).toBeNull();
  });
});
