import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CollectorContext, WatchedProcess } from '../../../../agent/collectors/types';

export const inventoryFixture = (name: string) => path.resolve(import.meta.dirname, '../../../fixtures', name);

export function treeContext(root: string, watched: WatchedProcess[] = [], nowMs = 0): CollectorContext {
  return { procRoot: path.join(root, 'proc'), sysRoot: path.join(root, 'sys'), nowMs, watched };
}

/** A writable copy of a fixture tree (or an empty tree), removed by the returned cleanup. */
export async function scratchTree(fixtureName?: string): Promise<{ root: string; write: (file: string, text: string) => Promise<void>; remove: (file: string) => Promise<void>; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'inferwatch-inventory-'));
  if (fixtureName) await cp(inventoryFixture(fixtureName), root, { recursive: true });
  return {
    root,
    async write(file, text) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    },
    remove: (file) => rm(path.join(root, file), { recursive: true, force: true }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export function expectAvailable<T>(value: T | { unavailable: string }): T {
  if (typeof value === 'object' && value !== null && 'unavailable' in value) throw new Error(`unavailable: ${value.unavailable}`);
  return value as T;
}
