import { describe, expect, test } from 'vitest';
import { collectHostInventory, parseMemTotalBytes } from '../../../../agent/collectors/host';
import { hostInventorySchema } from '../../../../lib/protocol';
import { inventoryFixture, scratchTree, treeContext } from './inventory-trees';

describe('host inventory', () => {
  test('parseMemTotalBytes converts MemTotal kB to bytes, null without the line', () => {
    expect(parseMemTotalBytes('MemTotal:       24684096 kB\nMemFree: 1 kB\n')).toBe(24684096 * 1024);
    expect(parseMemTotalBytes('MemFree: 1 kB\n')).toBeNull();
    expect(parseMemTotalBytes(`MemTotal: ${'9'.repeat(400)} kB\n`)).toBeNull();
  });

  test('an osrelease of control characters or a huge one still fits the protocol', async () => {
    const tree = await scratchTree('inventory-firecracker-v1');
    try {
      await tree.write('proc/sys/kernel/osrelease', '\u0000\u0001\n');
      expect((await collectHostInventory(treeContext(tree.root))).kernel).toBeNull();
      await tree.write('proc/sys/kernel/osrelease', 'x'.repeat(5000));
      const host = await collectHostInventory(treeContext(tree.root));
      expect(host.kernel).toHaveLength(200);
      expect(hostInventorySchema.parse(host)).toEqual(host);
    } finally {
      await tree.cleanup();
    }
  });

  test('reads kernel, memory and online CPUs from the tree captured on this Firecracker host', async () => {
    const host = await collectHostInventory(treeContext(inventoryFixture('inventory-firecracker-v1')));
    expect(host).toEqual({ kernel: '6.18.44-fc-v595', memTotalBytes: 24684096 * 1024, onlineCpus: 2 });
    expect(hostInventorySchema.parse(host)).toEqual(host);
  });

  test('reports null kernel and memory and counts cpuinfo processors when the files are missing', async () => {
    const tree = await scratchTree();
    try {
      await tree.write('proc/cpuinfo', 'processor\t: 0\nflags\t: fpu\n\nprocessor\t: 1\nflags\t: fpu\n\nprocessor\t: 2\nflags\t: fpu\n');
      expect(await collectHostInventory(treeContext(tree.root))).toEqual({ kernel: null, memTotalBytes: null, onlineCpus: 3 });
    } finally {
      await tree.cleanup();
    }
  });
});
