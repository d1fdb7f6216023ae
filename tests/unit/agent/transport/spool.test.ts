import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { openSpool } from '../../../../agent/transport/spool';
import { makeReport } from './report-fixture';

const freshDir = () => mkdtempSync(path.join(os.tmpdir(), 'iw-spool-'));
const bytesOf = (seq: number) => Buffer.byteLength(JSON.stringify(makeReport(seq)));

describe('openSpool', () => {
  test('takes the oldest reports first and forgets acknowledged ones', async () => {
    const spool = await openSpool(freshDir(), 1_000_000);
    for (const seq of [3, 1, 2]) await spool.append(makeReport(seq));
    const batch = await spool.takeBatch(2, 1_000_000);
    expect(batch.map((r) => r.seq)).toEqual([1, 2]);
    expect(JSON.parse(batch[0]!.json)).toEqual(makeReport(1));
    await spool.ack([1, 2]);
    expect((await spool.takeBatch(10, 1_000_000)).map((r) => r.seq)).toEqual([3]);
    expect(spool.count).toBe(1);
    expect(spool.size).toBe(bytesOf(3));
  });

  test('limits a batch by bytes but always returns at least one report', async () => {
    const spool = await openSpool(freshDir(), 1_000_000);
    for (const seq of [0, 1, 2]) await spool.append(makeReport(seq));
    expect((await spool.takeBatch(10, bytesOf(0) * 2)).map((r) => r.seq)).toEqual([0, 1]);
    expect((await spool.takeBatch(10, 1)).map((r) => r.seq)).toEqual([0]);
  });

  test('keeps unacknowledged reports across a restart', async () => {
    const dir = freshDir();
    const first = await openSpool(dir, 1_000_000);
    for (const seq of [0, 1, 2]) await first.append(makeReport(seq));
    await first.ack([0]);
    const reopened = await openSpool(dir, 1_000_000);
    expect((await reopened.takeBatch(10, 1_000_000)).map((r) => r.seq)).toEqual([1, 2]);
    expect(reopened.maxSeq).toBe(2);
    expect(reopened.size).toBe(bytesOf(1) + bytesOf(2));
  });

  test('drops the oldest reports when full and counts them across restarts', async () => {
    const dir = freshDir();
    const maxBytes = bytesOf(0) * 3;
    const spool = await openSpool(dir, maxBytes);
    for (let seq = 0; seq < 5; seq++) await spool.append(makeReport(seq));
    expect(spool.droppedCount).toBe(2);
    expect(spool.size).toBeLessThanOrEqual(maxBytes);
    expect((await spool.takeBatch(10, 1_000_000)).map((r) => r.seq)).toEqual([2, 3, 4]);
    const reopened = await openSpool(dir, maxBytes);
    expect(reopened.droppedCount).toBe(2);
    await reopened.append(makeReport(5));
    expect(reopened.droppedCount).toBe(3);
  });

  test('ignores and removes a half-written temp file left by a crash', async () => {
    const dir = freshDir();
    const spool = await openSpool(dir, 1_000_000);
    await spool.append(makeReport(0));
    writeFileSync(path.join(dir, '.tmp-r-0000000000000001.json-deadbeef'), '{"v":1,"seq":1,"ts":');
    const reopened = await openSpool(dir, 1_000_000);
    expect((await reopened.takeBatch(10, 1_000_000)).map((r) => r.seq)).toEqual([0]);
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(reopened.maxSeq).toBe(0);
  });

  test('acknowledging an unknown seq is harmless', async () => {
    const spool = await openSpool(freshDir(), 1_000_000);
    await spool.append(makeReport(7));
    await spool.ack([6, 8]);
    expect(spool.count).toBe(1);
  });
});
