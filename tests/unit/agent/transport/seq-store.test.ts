import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { openSeqStore } from '../../../../agent/transport/seq-store';

test('seq continues after a restart, never below the spool or the server nextSeq', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iw-seq-'));
  const store = await openSeqStore(dir);
  expect(store.nextSeq).toBe(0);
  await store.commit(0);
  await store.commit(1);
  expect((await openSeqStore(dir)).nextSeq).toBe(2);
  expect((await openSeqStore(dir, 9)).nextSeq).toBe(9);
  const raised = await openSeqStore(dir);
  await raised.raiseTo(100);
  await raised.raiseTo(50);
  expect((await openSeqStore(dir)).nextSeq).toBe(100);
});
