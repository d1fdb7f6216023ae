import { describe, expect, test, vi } from 'vitest';
import { createPressureCollector } from '../../../../agent/collectors/pressure';
import { contextAt, fixture } from './two-readings';

// With psi=0 on the kernel command line the files exist but every read fails with EOPNOTSUPP.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    readFileSync: ((file: string, ...rest: unknown[]) => {
      if (String(file).includes('/pressure/')) {
        throw Object.assign(new Error(`EOPNOTSUPP: operation not supported on socket, read`), { code: 'EOPNOTSUPP' });
      }
      return (actual.readFileSync as (...args: unknown[]) => unknown)(file, ...rest);
    }) as typeof actual.readFileSync,
  };
});

describe('createPressureCollector with PSI disabled at boot', () => {
  test('reports unavailable with the psi=0 reason instead of zeros', async () => {
    const result = await createPressureCollector().collect(contextAt({ procRoot: fixture('debian-kvm', 'proc'), nowMs: 0 }));
    expect(result).toEqual({ unavailable: 'pressure cpu: PSI disabled (kernel booted with psi=0; add psi=1)' });
  });
});
