import { describe, expect, test } from 'vitest';
import type { Inventory } from '../../protocol';
import { cleanInventory, loaded, watchedProcess } from '../../../tests/support/findings-facts';
import { departureOf, type Snapshot } from './inventory-bursts';
import { diffInventories } from './inventory-diff';

interface Serve {
  pid: number;
  omp: string;
  threads: number;
  warm?: boolean;
}

function inventory(serve: Serve | null, other = 2): Inventory {
  const processes = [
    watchedProcess({ name: 'other.py', pid: 77, threads: other }),
    ...(serve
      ? [
          watchedProcess({
            pid: serve.pid,
            threads: serve.threads,
            env: { OMP_NUM_THREADS: serve.omp },
            runtimes: serve.warm ? loaded('pytorch', 'gnu-openmp', 'onednn') : loaded('pytorch', 'gnu-openmp'),
          }),
        ]
      : []),
  ];
  return cleanInventory({ processes });
}

const at = (atMs: number, data: Inventory): Snapshot => ({ hostId: 1, atMs, data });

describe('departureOf: when the change a person made began', () => {
  const base = at(0, inventory({ pid: 10, omp: '8', threads: 1 }));
  const warmedUp = at(10, inventory({ pid: 10, omp: '8', threads: 15, warm: true }));
  const gone = at(20, inventory(null));
  const restarted = at(30, inventory({ pid: 11, omp: '1', threads: 2, warm: true }));

  test('a restart with a new setting begins with the process gone, not with its warm-up before', () => {
    const burst = [warmedUp, gone, restarted];
    const changes = diffInventories(base.data, restarted.data);
    expect(changes).toContain('serve.py OMP_NUM_THREADS 8 → 1');
    expect(departureOf(base, burst, changes)).toBe(gone);
  });

  test('without a snapshot of the process gone, it begins with the first one showing the new setting', () => {
    expect(departureOf(base, [warmedUp, restarted], diffInventories(base.data, restarted.data))).toBe(restarted);
  });

  test('another process settling in the same minutes does not begin it', () => {
    const otherSettles = at(5, inventory({ pid: 10, omp: '8', threads: 1 }, 40));
    expect(departureOf(base, [otherSettles, gone, restarted], diffInventories(base.data, restarted.data))).toBe(gone);
  });

  test('a change made only of warm-up lines begins with the first snapshot that touched its process', () => {
    const changes = diffInventories(base.data, warmedUp.data);
    expect(changes.length).toBeGreaterThan(0);
    expect(departureOf(base, [warmedUp], changes)).toBe(warmedUp);
  });
});
