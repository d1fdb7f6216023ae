import { expect, test } from 'vitest';
import { demoEnabled } from '../../../lib/demo/start';
import { parseServerEnvironment } from '../../../lib/server/environment';

const embedded = { kind: 'embedded', dataDir: '/tmp/x' } as const;
const server = { kind: 'server', url: 'postgres://postgres@127.0.0.1:5432/inferwatch' } as const;
const demo = (env: Record<string, string>) => parseServerEnvironment(env).demo;

test('the demo is on by default only with the embedded database; INFERWATCH_DEMO=0 and =1 override that', () => {
  expect(demoEnabled(demo({}), embedded)).toBe(true);
  expect(demoEnabled(demo({}), server)).toBe(false);
  expect(demoEnabled(demo({ INFERWATCH_DEMO: '0' }), embedded)).toBe(false);
  expect(demoEnabled(demo({ INFERWATCH_DEMO: '1' }), server)).toBe(true);
  expect(demoEnabled(demo({ INFERWATCH_DEMO: '1' }), embedded)).toBe(true);
  expect(demoEnabled(demo({ INFERWATCH_DEMO: ' false ' }), embedded)).toBe(false);
  expect(demoEnabled(demo({ INFERWATCH_DEMO: '' }), server)).toBe(false);
});
