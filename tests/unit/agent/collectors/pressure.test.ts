import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { computePressureResource, createPressureCollector, parsePressure } from '../../../../agent/collectors/pressure';
import { pressureSampleSchema } from '../../../../lib/protocol';
import { collectTwice, contextAt, expectData, fixture } from './two-readings';

const read = (...parts: string[]) => readFile(fixture(...parts), 'utf8');

describe('parsePressure', () => {
  test('reads some and full lines of /proc/pressure/io captured on the Debian KVM guest', async () => {
    expect(parsePressure(await read('debian-kvm', 'proc', 'pressure', 'io'))).toEqual({
      some: { avg10: 0, avg60: 0.42, avg300: 0.5, totalUs: 4634874 },
      full: { avg10: 0, avg60: 0.4, avg300: 0.46, totalUs: 4227888 },
    });
  });

  test('gives full as null when the kernel prints only a some line (cpu before 5.13)', async () => {
    expect(parsePressure(await read('handmade', 'psi-no-cpu-full', 't0', 'proc', 'pressure', 'cpu'))).toEqual({
      some: { avg10: 12.5, avg60: 8.25, avg300: 3.1, totalUs: 50_000_000 },
      full: null,
    });
  });

  test('a full line that does not parse becomes null; a some line that does not parse rejects the file', () => {
    const some = 'some avg10=0.50 avg60=0.10 avg300=0.00 total=12345';
    expect(parsePressure(`${some}\nfull avg10=x avg60=0.00 avg300=0.00 total=5\n`)).toEqual({
      some: { avg10: 0.5, avg60: 0.1, avg300: 0, totalUs: 12345 },
      full: null,
    });
    expect(() => parsePressure('some avg10=0.50 avg60=0.10 avg300=0.00 total=-1\n')).toThrow(/malformed/);
    expect(() => parsePressure('some avg10=0.50 avg60=0.10 total=1\n')).toThrow(/malformed/);
  });

  test('rejects a file without a some line', () => {
    expect(() => parsePressure('full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')).toThrow(/some/);
  });
});

describe('createPressureCollector over two readings', () => {
  test('computes stall % as delta(total µs) over elapsed µs between the two captured Debian KVM readings', async () => {
    const { baseline, sample } = await collectTwice(
      createPressureCollector(),
      { procRoot: fixture('debian-kvm', 'proc'), nowMs: 5_000 },
      { procRoot: fixture('debian-kvm-1s-later', 'proc'), nowMs: 6_000 },
    );
    expect(baseline).toEqual({ unavailable: expect.stringMatching(/^warming up/) });
    const pressure = expectData(sample);
    const cpu = expectData(pressure.cpu);
    const io = expectData(pressure.io);
    const memory = expectData(pressure.memory);
    expect(cpu.some).toEqual({ avg10: 0.08, avg60: 1.36, avg300: 2.9, stallPct: ((22325779 - 22245183) / 1_000_000) * 100 });
    expect(cpu.full?.stallPct).toBe(0);
    expect(io.some.stallPct).toBeCloseTo(((4777037 - 4634874) / 1_000_000) * 100, 10);
    expect(io.full?.stallPct).toBeCloseTo(((4368702 - 4227888) / 1_000_000) * 100, 10);
    expect(memory.some.stallPct).toBe(0);
    expect(pressureSampleSchema.parse(pressure)).toEqual(pressure);
  });

  test('reports cpu full as null on a kernel without the cpu full line, over a 2 s interval', async () => {
    const { sample } = await collectTwice(
      createPressureCollector(),
      { procRoot: fixture('handmade', 'psi-no-cpu-full', 't0', 'proc'), nowMs: 0 },
      { procRoot: fixture('handmade', 'psi-no-cpu-full', 't1', 'proc'), nowMs: 2_000 },
    );
    const pressure = expectData(sample);
    // cpu some: 500 000 µs stalled in 2 000 000 µs; io some 100 000 µs, io full 60 000 µs.
    expect(expectData(pressure.cpu)).toEqual({ some: { avg10: 12.75, avg60: 8.4, avg300: 3.2, stallPct: 25 }, full: null });
    expect(expectData(pressure.io).some.stallPct).toBeCloseTo(5, 10);
    expect(expectData(pressure.io).full?.stallPct).toBeCloseTo(3, 10);
  });

  test('reports unavailable, never zeros, on a kernel without PSI', async () => {
    const collector = createPressureCollector();
    const result = await collector.collect(contextAt({ procRoot: fixture('handmade', 'no-psi', 'proc'), nowMs: 0 }));
    expect(result).toEqual({ unavailable: expect.stringContaining('no PSI on this kernel') });
  });

  test('marks one resource unavailable when its total went backwards', () => {
    const line = (totalUs: number) => ({ avg10: 1, avg60: 1, avg300: 1, totalUs });
    expect(computePressureResource({ some: line(900), full: null }, { some: line(100), full: null }, 1000)).toEqual({
      unavailable: expect.stringContaining('counter reset'),
    });
  });
});
