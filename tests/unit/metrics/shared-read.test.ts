import { expect, test } from 'vitest';
import { sharedRead } from '../../../lib/metrics/shared-read';

test('collectors asking at once share one read; a later scrape reads again', async () => {
  let reads = 0;
  const read = sharedRead(async () => ++reads);
  expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
  expect(await read()).toBe(2);
});

test('a failed read fails the scrape that shared it, and the next one reads again', async () => {
  let reads = 0;
  const read = sharedRead(async () => {
    reads++;
    if (reads === 1) throw new Error('database away');
    return reads;
  });
  const first = await Promise.allSettled([read(), read()]);
  expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(await read()).toBe(2);
});
