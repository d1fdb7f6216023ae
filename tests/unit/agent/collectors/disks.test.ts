import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { computeDiskSample, createDiskCollector, parseDiskstats } from '../../../../agent/collectors/disks';
import { diskSampleSchema } from '../../../../lib/protocol';
import { collectTwice, contextAt, expectData, fixture } from './two-readings';

const read = (...parts: string[]) => readFile(fixture(...parts), 'utf8');
const mixed = (...parts: string[]) => fixture('handmade', 'mixed-disks', ...parts);

describe('parseDiskstats', () => {
  test('reads the 20-field lines (with discard and flush counters) captured on the Debian KVM guest', async () => {
    const disks = parseDiskstats(await read('debian-kvm', 'proc', 'diskstats'));
    expect(disks.map((d) => d.name)).toEqual(['loop0', 'loop1', 'loop2', 'loop3', 'loop4', 'loop5', 'loop6', 'loop7', 'vda', 'zram0']);
    expect(disks.find((d) => d.name === 'vda')).toEqual({
      major: 254, minor: 0, name: 'vda',
      readsCompleted: 57409, readsMerged: 9686, sectorsRead: 2032930, readTimeMs: 16187,
      writesCompleted: 30286, writesMerged: 49770, sectorsWritten: 4085056, writeTimeMs: 15606,
      inFlight: 0, ioTimeMs: 8744, weightedIoTimeMs: 32656,
      discardsCompleted: 10008, discardsMerged: 38, sectorsDiscarded: 778208, discardTimeMs: 640,
      flushesCompleted: 5353, flushTimeMs: 221,
    });
  });

  test('reads 14-field lines (before 4.18) with discard and flush fields as null', () => {
    const [sda] = parseDiskstats('   8    0 sda 100 0 800 50 200 0 1600 100 0 120 150\n');
    expect(sda).toMatchObject({ name: 'sda', readsCompleted: 100, weightedIoTimeMs: 150, discardsCompleted: null, flushesCompleted: null });
  });

  test('reads 18-field lines (4.18 to 5.4) with discard counters and flush fields as null', () => {
    const [nvme] = parseDiskstats(' 259       0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n');
    expect(nvme).toMatchObject({ inFlight: 9, discardsCompleted: 12, discardTimeMs: 15, flushesCompleted: null, flushTimeMs: null });
  });

  test('skips the 4-counter partition lines of 2.6-era kernels', () => {
    expect(parseDiskstats('   8    1 sda1 90 720 180 1440\n')).toEqual([]);
  });

  test('leaves out only the device whose line has a counter that does not parse (never NaN)', () => {
    const text = [
      '   8    0 sda 100 0 800 50 200 0 1600 100 0 120 150',
      '   8   16 sdb 100 0 x 50 200 0 1600 100 0 120 150',
      ' 259    0 nvme0n1 1 2 3 4 5 6 7 8 4294967295 10 11',
      ' 259    1 nvme1n1 1 2 3 4 5 6 7 8 1 10 -11',
      ' 253    0 dm-0 1 2 3 4 5 6 7 8 0 10 11 z',
    ].join('\n');
    const disks = parseDiskstats(text);
    expect(disks.map((d) => d.name)).toEqual(['sda', 'dm-0']);
    expect(disks[1]).toMatchObject({ inFlight: 0, discardsCompleted: null });
  });

  test('keeps the first line of a device listed twice: the server keys disk rows by name', () => {
    const disks = parseDiskstats('8 0 sda 1 0 8 5 2 0 16 1 0 1 1\n8 0 sda 9 9 9 9 9 9 9 9 9 9 9\n');
    expect(disks).toHaveLength(1);
    expect(disks[0]!.readsCompleted).toBe(1);
  });
});

describe('computeDiskSample with odd counters', () => {
  const [prev] = parseDiskstats('8 0 sda 100 0 800 50 200 0 1600 100 0 120 150\n');
  test('a millisecond field that dropped by more than one 32-bit wrap is a reset: no sample', () => {
    const [curr] = parseDiskstats('8 0 sda 110 0 880 99999999999 210 0 1680 110 0 130 160\n');
    expect(computeDiskSample(prev!, curr!, 1000)).not.toBeNull();
    const [dropped] = parseDiskstats('8 0 sda 110 0 880 60 210 0 1680 110 0 130 160\n');
    expect(computeDiskSample({ ...prev!, weightedIoTimeMs: 2 ** 40 }, dropped!, 1000)).toBeNull();
  });

  test('a sector or I/O counter that jumped past any real rate (2^64 in a garbled file) is no sample', () => {
    const [sectors] = parseDiskstats('8 0 sda 110 0 18446744073709551615 60 210 0 1680 110 0 130 160\n');
    expect(computeDiskSample(prev!, sectors!, 1000)).toBeNull();
    const [writes] = parseDiskstats('8 0 sda 110 0 880 60 18446744073709551615 0 1680 110 0 130 160\n');
    expect(computeDiskSample(prev!, writes!, 1000)).toBeNull();
  });
});

describe('createDiskCollector over two readings', () => {
  test('computes iostat -x figures for vda between the two captured Debian KVM readings, skipping loop and zram', async () => {
    const { baseline, sample } = await collectTwice(
      createDiskCollector(),
      { procRoot: fixture('debian-kvm', 'proc'), sysRoot: fixture('debian-kvm', 'sys'), nowMs: 1_000 },
      { procRoot: fixture('debian-kvm-1s-later', 'proc'), sysRoot: fixture('debian-kvm', 'sys'), nowMs: 2_000 },
    );
    expect(baseline).toEqual({ unavailable: expect.stringMatching(/^warming up/) });
    const disks = expectData(sample);
    expect(disks).toHaveLength(1);
    const vda = disks[0]!;
    // 11 reads (3 ms), 3000 writes (286 ms), 280 / 384000 sectors, io_ticks +300 ms, time in queue +289 ms, over 1 s.
    expect(vda).toMatchObject({ device: 'vda', readIops: 11, writeIops: 3000, readBytesPerS: 280 * 512, writeBytesPerS: 384000 * 512, inFlight: 0 });
    expect(vda.readAwaitMs).toBeCloseTo(3 / 11, 10);
    expect(vda.writeAwaitMs).toBeCloseTo(286 / 3000, 10);
    expect(vda.queueDepth).toBeCloseTo(0.289, 10);
    expect(vda.utilPct).toBeCloseTo(30, 10);
    expect(diskSampleSchema.parse(vda)).toEqual(vda);
  });

  test('reports whole disks only (NVMe, HDD, virtio, dm, md), never partitions, and skips a device whose counters reset', async () => {
    const { sample } = await collectTwice(
      createDiskCollector(),
      { procRoot: mixed('t0', 'proc'), sysRoot: mixed('sys'), nowMs: 0 },
      { procRoot: mixed('t1', 'proc'), sysRoot: mixed('sys'), nowMs: 2_000 },
    );
    const disks = expectData(sample);
    expect(disks.map((d) => d.device)).toEqual(['nvme0n1', 'sdb', 'vdb', 'dm-0', 'md0']);
    const byName = Object.fromEntries(disks.map((d) => [d.device, d]));
    // nvme0n1 over 2 s: +400 reads (200 ms), +600 writes (1200 ms), +32000/+96000 sectors, io_ticks +1000, queue +3000.
    expect(byName.nvme0n1).toEqual({
      device: 'nvme0n1', readIops: 200, writeIops: 300, readBytesPerS: (32000 * 512) / 2, writeBytesPerS: (96000 * 512) / 2,
      readAwaitMs: 0.5, writeAwaitMs: 2, queueDepth: 1.5, inFlight: 3, utilPct: 50,
    });
    // dm-0: +340 reads (200 ms), +540 writes (1500 ms), io_ticks +950, queue +1700.
    expect(byName['dm-0']!.readAwaitMs).toBeCloseTo(200 / 340, 10);
    expect(byName['dm-0']!.writeAwaitMs).toBeCloseTo(1500 / 540, 10);
    expect(byName['dm-0']).toMatchObject({ readIops: 170, writeIops: 270, queueDepth: 0.85, utilPct: 47.5, inFlight: 2 });
    expect(byName.vdb).toMatchObject({ readIops: 0, readAwaitMs: 0, writeIops: 50, writeBytesPerS: 2_048_000, writeAwaitMs: 0.5, queueDepth: 0.025, utilPct: 2.5 });
    expect(byName.md0).toMatchObject({ readIops: 5, writeIops: 5, readBytesPerS: 204_800, queueDepth: 0, utilPct: 0 });
  });

  test('treats the 32-bit millisecond counters as wrapping instead of going backwards', async () => {
    const { sample } = await collectTwice(
      createDiskCollector({ deviceFilter: /^sdb$/ }),
      { procRoot: mixed('t0', 'proc'), sysRoot: mixed('sys'), nowMs: 0 },
      { procRoot: mixed('t1', 'proc'), sysRoot: mixed('sys'), nowMs: 2_000 },
    );
    // read ticks 4294967290 → 10 is +16 ms for 8 reads; io_ticks 4294967200 → 104 is +200; queue 4294967000 → 200 is +496.
    expect(expectData(sample)).toEqual([{
      device: 'sdb', readIops: 4, writeIops: 0, readBytesPerS: (640 * 512) / 2, writeBytesPerS: 0,
      readAwaitMs: 2, writeAwaitMs: 0, queueDepth: 0.248, inFlight: 1, utilPct: 10,
    }]);
  });

  test('includes loop devices only when asked to, and honours the device filter', async () => {
    const run = async (options: Parameters<typeof createDiskCollector>[0]) =>
      expectData((await collectTwice(
        createDiskCollector({ ...options }),
        { procRoot: mixed('t0', 'proc'), sysRoot: mixed('sys'), nowMs: 0 },
        { procRoot: mixed('t1', 'proc'), sysRoot: mixed('sys'), nowMs: 2_000 },
      )).sample).map((d) => d.device);
    expect(await run({ includeVirtual: true })).toContain('loop0');
    expect(await run({ deviceFilter: /^(nvme|vd)/ })).toEqual(['nvme0n1', 'vdb']);
  });

  test('computes figures from the 14-field diskstats of an old kernel', async () => {
    const { sample } = await collectTwice(
      createDiskCollector({ deviceFilter: /^sda$/ }),
      { procRoot: fixture('handmade', 'old-kernel', 't0', 'proc'), sysRoot: mixed('sys'), nowMs: 0 },
      { procRoot: fixture('handmade', 'old-kernel', 't1', 'proc'), sysRoot: mixed('sys'), nowMs: 4_000 },
    );
    expect(expectData(sample)).toEqual([{
      device: 'sda', readIops: 12.5, writeIops: 25, readBytesPerS: 51_200, writeBytesPerS: 102_400,
      readAwaitMs: 1, writeAwaitMs: 2, queueDepth: 0.075, inFlight: 0, utilPct: 2.5,
    }]);
  });

  test('reports unavailable when /proc/diskstats cannot be read', async () => {
    const result = await createDiskCollector().collect(contextAt({ procRoot: '/nonexistent/proc', nowMs: 0 }));
    expect(result).toEqual({ unavailable: 'disks: not present on this kernel' });
  });
});
