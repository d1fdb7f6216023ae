import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { computeCpuSample, createCpuCollector, parseLoadavg, parseProcStat } from '../../../../agent/collectors/cpu';
import { cpuSampleSchema } from '../../../../lib/protocol';
import { collectTwice, contextAt, expectData, fixture } from './two-readings';

const read = (...parts: string[]) => readFile(fixture(...parts), 'utf8');
const handmade = (name: string, t: 't0' | 't1') => fixture('handmade', name, t, 'proc');

describe('parseProcStat', () => {
  test('reads per-CPU and total jiffies, ctxt and procs from a /proc/stat captured on the Debian KVM guest', async () => {
    const stat = parseProcStat(await read('debian-kvm', 'proc', 'stat'));
    expect(stat.total).toEqual({ user: 12160, nice: 0, system: 4547, idle: 75125, iowait: 506, irq: 0, softirq: 119, steal: 750, guest: 0, guestNice: 0 });
    expect(stat.perCpu.map((c) => c.cpu)).toEqual([0, 1]);
    expect(stat.perCpu[1]!.jiffies).toMatchObject({ user: 7266, system: 2565, idle: 35786, iowait: 474, softirq: 90, steal: 407 });
    expect(stat.contextSwitches).toBe(1810055);
    expect(stat.procsRunning).toBe(1);
    expect(stat.procsBlocked).toBe(0);
  });

  test('fills steal, guest and guest_nice with 0 on kernels that print only 7 columns', async () => {
    const stat = parseProcStat(await read('handmade', 'old-kernel', 't0', 'proc', 'stat'));
    expect(stat.perCpu[0]!.jiffies).toEqual({ user: 1000, nice: 50, system: 300, idle: 3500, iowait: 100, irq: 25, softirq: 25, steal: 0, guest: 0, guestNice: 0 });
    expect(stat.procsRunning).toBe(2);
  });

  test('rejects text without any cpu line', () => {
    expect(() => parseProcStat('ctxt 5\nprocs_running 1\n')).toThrow(/cpu/);
  });

  test('leaves out a per-CPU line that does not parse but still counts that CPU as online', () => {
    const stat = parseProcStat('cpu  20 0 6 70 2 0 1\ncpu0 10 0 3 35 1 0 0\ncpu1 10 x 3 35 1 0 1\ncpu2 10 0 3\nctxt 9\n');
    expect(stat.perCpu.map((c) => c.cpu)).toEqual([0]);
    expect(stat.onlineCpus).toBe(3);
    expect(stat.total).toMatchObject({ user: 20, idle: 70 });
  });

  test('gives null, never NaN, for an aggregate line, ctxt or procs line that does not parse', () => {
    const stat = parseProcStat('cpu  20 0 6 -70 2 0 1\ncpu0 10 0 3 35 1 0 0\nctxt 1e9\nprocs_running 4294967295\nprocs_blocked\n');
    expect(stat).toMatchObject({ total: null, contextSwitches: null, procsRunning: null, procsBlocked: null });
    expect(stat.perCpu).toHaveLength(1);
  });
});

describe('computeCpuSample with odd lines', () => {
  const stat = (cpu1: string, extra = 'ctxt 100\nprocs_running 1\nprocs_blocked 0\n') =>
    parseProcStat(`cpu  200 0 0 200 0 0 0\ncpu0 100 0 0 100 0 0 0\ncpu1 ${cpu1}\n${extra}`);
  const loadavg = parseLoadavg('0.5 0.4 0.3 1/100 42\n');

  test('a garbled CPU line costs that CPU only: the total is summed over the CPUs that parse', () => {
    const prev = stat('100 0 0 100 0 0 0');
    const curr = parseProcStat('cpu  300 0 0 300 0 0 0\ncpu0 150 0 0 150 0 0 0\ncpu1 ??? 0 0 150 0 0 0\nctxt 200\nprocs_running 1\nprocs_blocked 0\n');
    const cpu = computeCpuSample(prev, curr, 1000, loadavg);
    expect(cpu).toMatchObject({ onlineCpus: 2, perCpu: [{ cpu: 0, userPct: 50 }], total: { userPct: 50, idlePct: 50 }, contextSwitchesPerS: 100 });
    expect(cpuSampleSchema.parse(cpu)).toEqual(cpu);
  });

  test('a ctxt line that does not parse makes the sample unavailable with the reason (the field is required)', () => {
    const cpu = computeCpuSample(stat('100 0 0 100 0 0 0'), stat('150 0 0 150 0 0 0', 'ctxt many\nprocs_running 1\nprocs_blocked 0\n'), 1000, loadavg);
    expect(cpu).toEqual({ unavailable: 'cpu: /proc/stat has no readable ctxt line' });
  });

  test('a ctxt counter that jumped past any real rate (2^64 in a garbled file) makes it unavailable, not a value the ingest refuses', () => {
    const cpu = computeCpuSample(stat('100 0 0 100 0 0 0'), stat('150 0 0 150 0 0 0', 'ctxt 18446744073709551615\nprocs_running 1\nprocs_blocked 0\n'), 1000, loadavg);
    expect(cpu).toEqual({ unavailable: 'cpu: the ctxt counter of /proc/stat jumped past any real rate' });
  });
});

describe('parseLoadavg', () => {
  test('reads the three load averages and the runnable/total entities', async () => {
    expect(parseLoadavg(await read('debian-kvm-1s-later', 'proc', 'loadavg'))).toEqual({
      load1: 0.22, load5: 0.35, load15: 0.2, runnableEntities: 2, totalEntities: 143,
    });
  });

  test('rejects a malformed line', () => {
    expect(() => parseLoadavg('garbage')).toThrow(/loadavg/);
    expect(() => parseLoadavg('-0.5 0.1 0.1 1/2 3')).toThrow(/loadavg/);
  });

  test('keeps the load averages when only the entities field is garbled (it is not reported)', () => {
    expect(parseLoadavg('0.22 0.35 0.20 2/x 1')).toEqual({ load1: 0.22, load5: 0.35, load15: 0.2, runnableEntities: 2, totalEntities: null });
  });
});

describe('createCpuCollector over two readings', () => {
  test('computes mpstat shares and context switches/s between the two captured Debian KVM readings', async () => {
    const { baseline, sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: fixture('debian-kvm', 'proc'), nowMs: 10_000 },
      { procRoot: fixture('debian-kvm-1s-later', 'proc'), nowMs: 11_000 },
    );
    expect(baseline).toEqual({ unavailable: expect.stringMatching(/^warming up/) });
    const cpu = expectData(sample);
    // cpu0 deltas: user 74, system 38, idle 25, iowait 20, steal 19 = 176 jiffies.
    expect(cpu.perCpu[0]).toMatchObject({ cpu: 0 });
    expect(cpu.perCpu[0]!.userPct).toBeCloseTo((74 / 176) * 100, 10);
    expect(cpu.perCpu[0]!.iowaitPct).toBeCloseTo((20 / 176) * 100, 10);
    expect(cpu.perCpu[0]!.stealPct).toBeCloseTo((19 / 176) * 100, 10);
    // cpu1 deltas: user 42, system 24, idle 91, iowait 3, softirq 4, steal 11 = 175. The total comes from the
    // aggregate line, as mpstat's does: user 117, system 61, idle 116, iowait 23, softirq 4, steal 30 = 351
    // (the kernel rounds the aggregate itself, so it differs from cpu0 + cpu1 by a jiffy).
    expect(cpu.perCpu[1]!.idlePct).toBeCloseTo((91 / 175) * 100, 10);
    expect(cpu.total.userPct).toBeCloseTo((117 / 351) * 100, 10);
    expect(cpu.total.systemPct).toBeCloseTo((61 / 351) * 100, 10);
    expect(cpu.total.idlePct).toBeCloseTo((116 / 351) * 100, 10);
    expect(cpu.total.iowaitPct).toBeCloseTo((23 / 351) * 100, 10);
    expect(cpu.total.softirqPct).toBeCloseTo((4 / 351) * 100, 10);
    expect(cpu.total.stealPct).toBeCloseTo((30 / 351) * 100, 10);
    expect(cpu.contextSwitchesPerS).toBe(1816619 - 1810055);
    expect(cpu).toMatchObject({ onlineCpus: 2, load1: 0.22, load5: 0.35, load15: 0.2, procsRunning: 1, procsBlocked: 0 });
    expect(cpuSampleSchema.parse(cpu)).toEqual(cpu);
  });

  test('skips a CPU whose counters went backwards instead of reporting negative shares', async () => {
    const { sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: handmade('cpu-counter-reset', 't0'), nowMs: 0 },
      { procRoot: handmade('cpu-counter-reset', 't1'), nowMs: 2_000 },
    );
    const cpu = expectData(sample);
    // Only cpu0 counts: user 100, system 20, idle 100, iowait 20, softirq 5, steal 5 = 250 jiffies.
    expect(cpu.perCpu.map((c) => c.cpu)).toEqual([0]);
    expect(cpu.total).toEqual({ userPct: 40, nicePct: 0, systemPct: 8, iowaitPct: 8, irqPct: 0, softirqPct: 2, stealPct: 2, idlePct: 40 });
    expect(cpu.onlineCpus).toBe(2);
    expect(cpu.contextSwitchesPerS).toBe(50);
  });

  test('leaves out a CPU that went offline between the readings', async () => {
    const { sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: handmade('cpu-offline', 't0'), nowMs: 0 },
      { procRoot: handmade('cpu-offline', 't1'), nowMs: 1_000 },
    );
    const cpu = expectData(sample);
    // cpu0 and cpu1 each: user 50, system 20, idle 80, iowait 20, steal 10 = 180 jiffies.
    expect(cpu.onlineCpus).toBe(2);
    expect(cpu.perCpu.map((c) => c.cpu)).toEqual([0, 1]);
    expect(cpu.total.userPct).toBeCloseTo((100 / 360) * 100, 10);
    expect(cpu.total.iowaitPct).toBeCloseTo((40 / 360) * 100, 10);
    expect(cpu.total.stealPct).toBeCloseTo((20 / 360) * 100, 10);
    expect(cpu.total.idlePct).toBeCloseTo((160 / 360) * 100, 10);
  });

  test('does not count guest time twice: it is already inside user and nice', async () => {
    const { sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: handmade('guest-time', 't0'), nowMs: 0 },
      { procRoot: handmade('guest-time', 't1'), nowMs: 1_000 },
    );
    // user 600 (of which guest 500), nice 100 (guest_nice 80), system 100, idle 200: 1000 jiffies, not 1580.
    expect(expectData(sample).total).toEqual({ userPct: 60, nicePct: 10, systemPct: 10, iowaitPct: 0, irqPct: 0, softirqPct: 0, stealPct: 0, idlePct: 20 });
  });

  test('computes shares on an old kernel without the steal column, with steal at 0', async () => {
    const { sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: handmade('old-kernel', 't0'), nowMs: 0 },
      { procRoot: handmade('old-kernel', 't1'), nowMs: 4_000 },
    );
    const cpu = expectData(sample);
    // cpu0: user 60, system 20, idle 100, iowait 10, softirq 10 = 200; cpu1: user 40, system 30, idle 100, iowait 40 = 210.
    expect(cpu.total.userPct).toBeCloseTo((100 / 410) * 100, 10);
    expect(cpu.total.iowaitPct).toBeCloseTo((50 / 410) * 100, 10);
    expect(cpu.total.stealPct).toBe(0);
    expect(cpu.perCpu[1]!.iowaitPct).toBeCloseTo((40 / 210) * 100, 10);
    expect(cpu.contextSwitchesPerS).toBe(250);
    expect(cpu).toMatchObject({ procsRunning: 3, procsBlocked: 1 });
  });

  test('reports unavailable, not zeros, when /proc/stat cannot be read', async () => {
    const result = await createCpuCollector().collect(contextAt({ procRoot: '/nonexistent/proc', nowMs: 0 }));
    expect(result).toEqual({ unavailable: 'cpu: not present on this kernel' });
  });
});

describe('createCpuCollector with no usable interval', () => {
  test('reports unavailable rather than zeros when the same reading is seen twice', async () => {
    const { sample } = await collectTwice(
      createCpuCollector(),
      { procRoot: handmade('guest-time', 't0'), nowMs: 0 },
      { procRoot: handmade('guest-time', 't0'), nowMs: 1_000 },
    );
    expect(sample).toEqual({ unavailable: expect.stringContaining('no CPU has a valid interval') });
  });
});
