import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  INFERENCE_FLAGS,
  classifyHypervisor,
  collectCpuInventory,
  intersectFlags,
  parseCpuinfo,
  parseNodeCpuLists,
} from '../../../../agent/collectors/cpuinfo';
import { cpuInventorySchema } from '../../../../lib/protocol';
import { expectAvailable, inventoryFixture, scratchTree, treeContext } from './inventory-trees';

const inventoryOf = async (name: string) => {
  const inventory = expectAvailable(await collectCpuInventory(treeContext(inventoryFixture(name))));
  expect(cpuInventorySchema.parse(inventory)).toEqual(inventory);
  return inventory;
};

describe('parseCpuinfo', () => {
  test('reads each processor of the /proc/cpuinfo captured on this host', async () => {
    const text = await readFile(path.join(inventoryFixture('inventory-firecracker-v1'), 'proc/cpuinfo'), 'utf8');
    const cpus = parseCpuinfo(text);
    expect(cpus).toHaveLength(2);
    expect(cpus[1]).toMatchObject({
      processor: 1,
      vendorId: 'GenuineIntel',
      modelName: 'Intel(R) Xeon(R) Processor @ 2.80GHz',
      physicalId: 0,
      coreId: 1,
      cpuMhz: 2793.44,
    });
    expect(cpus[0]!.flags).toHaveLength(97);
    expect(cpus[0]!.flags).toEqual(expect.arrayContaining(['avx2', 'fma', 'avx512f', 'avx512_vnni', 'hypervisor']));
  });

  test('reads arm64 Features and CPU implementer and leaves missing fields null', () => {
    const [cpu] = parseCpuinfo('processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes crc32 atomics\nCPU implementer\t: 0x41\n');
    expect(cpu).toEqual({ processor: 0, vendorId: '0x41', modelName: null, physicalId: null, coreId: null, flags: ['fp', 'asimd', 'evtstrm', 'aes', 'crc32', 'atomics'], cpuMhz: null });
  });
});

describe('parseNodeCpuLists', () => {
  test('orders the nodes by number, keeps a memory-only node as an empty list and ignores other entries', () => {
    expect(parseNodeCpuLists([
      { name: 'node10', cpulist: '40-43\n' },
      { name: 'node2', cpulist: '8-15,48-55\n' },
      { name: 'node0', cpulist: '0-7\n' },
      { name: 'node3', cpulist: '\n' },
      { name: 'possible', cpulist: '0-10' },
    ])).toEqual(['0-7', '8-15,48-55', '', '40-43']);
  });

  test('gives nothing unless every node has a list', () => {
    expect(parseNodeCpuLists([{ name: 'node0', cpulist: '0-3' }, { name: 'node1', cpulist: undefined }])).toBeUndefined();
    expect(parseNodeCpuLists([])).toBeUndefined();
  });
});

describe('intersectFlags', () => {
  test('keeps the flags every CPU has, sorted, and says whether all CPUs agree', () => {
    expect(intersectFlags([['sse', 'avx2', 'avx512f'], ['avx2', 'sse']])).toEqual({ flags: ['avx2', 'sse'], uniform: false });
    expect(intersectFlags([['b', 'a'], ['a', 'b']])).toEqual({ flags: ['a', 'b'], uniform: true });
  });
});

describe('classifyHypervisor', () => {
  test.each([
    ['VMware', { sysVendor: 'VMware, Inc.', productName: 'VMware7,1', biosVendor: 'VMware, Inc.' }, 'vmware', 'VMware, Inc. VMware7,1'],
    ['Hyper-V / Azure', { sysVendor: 'Microsoft Corporation', productName: 'Virtual Machine', biosVendor: 'Microsoft Corporation' }, 'hyperv', 'Microsoft Corporation Virtual Machine'],
    ['Xen HVM (older EC2)', { sysVendor: 'Xen', productName: 'HVM domU', biosVendor: 'Xen' }, 'xen', 'Xen HVM domU'],
    ['QEMU/KVM VPS', { sysVendor: 'QEMU', productName: 'Standard PC (i440FX + PIIX, 1996)', biosVendor: 'SeaBIOS' }, 'kvm', 'QEMU Standard PC (i440FX + PIIX, 1996)'],
    ['Hetzner Cloud', { sysVendor: 'Hetzner', productName: 'vServer', biosVendor: 'Hetzner' }, 'kvm', 'Hetzner vServer'],
    ['EC2 Nitro', { sysVendor: 'Amazon EC2', productName: 'c6i.xlarge', biosVendor: 'Amazon EC2' }, 'kvm', 'Amazon EC2 c6i.xlarge'],
    ['VirtualBox', { sysVendor: 'innotek GmbH', productName: 'VirtualBox', biosVendor: 'innotek GmbH' }, 'other', 'innotek GmbH VirtualBox'],
  ] as const)('DMI of %s with the hypervisor flag', (_, dmi, hypervisor, vendor) => {
    expect(classifyHypervisor({ hypervisorFlag: true, ...dmi })).toEqual({ hypervisor, hypervisorVendor: vendor });
  });

  test('Xen PV guest without DMI is recognised from /sys/hypervisor/type', () => {
    expect(classifyHypervisor({ hypervisorFlag: true, hypervisorType: 'xen\n' })).toEqual({ hypervisor: 'xen', hypervisorVendor: 'xen' });
  });

  test('EC2 bare metal shares the Amazon DMI but has no hypervisor flag: none', () => {
    expect(classifyHypervisor({ hypervisorFlag: false, sysVendor: 'Amazon EC2', productName: 'c5.metal', biosVendor: 'Amazon EC2' }))
      .toEqual({ hypervisor: 'none', hypervisorVendor: null });
  });

  test('without DMI a paravirt clocksource names the hypervisor; with nothing it is "other"', () => {
    expect(classifyHypervisor({ hypervisorFlag: true, clocksources: 'tsc hyperv_clocksource_tsc_page acpi_pm\n' }))
      .toEqual({ hypervisor: 'hyperv', hypervisorVendor: 'clocksource tsc hyperv_clocksource_tsc_page acpi_pm' });
    expect(classifyHypervisor({ hypervisorFlag: true })).toEqual({ hypervisor: 'other', hypervisorVendor: null });
  });
});

describe('collectCpuInventory', () => {
  test('this Firecracker guest (captured): 1 socket, 2 cores, AVX-512, KVM from kvm-clock, no governor', async () => {
    const cpu = await inventoryOf('inventory-firecracker-v1');
    expect(cpu).toMatchObject({
      vendor: 'GenuineIntel',
      model: 'Intel(R) Xeon(R) Processor @ 2.80GHz',
      sockets: 1,
      cores: 2,
      threads: 2,
      numaNodes: 1,
      numaNodeCpus: ['0-1'],
      flagsUniform: true,
      hypervisor: 'kvm',
      hypervisorVendor: 'clocksource tsc kvm-clock',
      governor: null,
    });
    expect(cpu.flags).toEqual([...cpu.flags].sort());
    expect(INFERENCE_FLAGS.filter((flag) => cpu.flags.includes(flag))).toEqual(['sse4_1', 'sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni']);
  });

  test('bare metal (hand-made): 2 sockets x 2 cores x 2 threads, 2 NUMA nodes, performance governor, no hypervisor', async () => {
    const cpu = await inventoryOf('inventory-baremetal-handmade');
    expect(cpu).toMatchObject({ sockets: 2, cores: 4, threads: 8, numaNodes: 2, hypervisor: 'none', hypervisorVendor: null, governor: 'performance', flagsUniform: true });
    expect(cpu.numaNodeCpus).toEqual(['0-3', '4-7']);
  });

  test('VMware with one vCPU lacking AVX-512 (hand-made): intersection drops avx512*, offline CPUs ignored, topology from sysfs', async () => {
    const cpu = await inventoryOf('inventory-vmware-mixed-flags-handmade');
    expect(cpu.flagsUniform).toBe(false);
    expect(cpu.flags).not.toContain('avx512f');
    expect(cpu.flags).toContain('avx2');
    expect(cpu).toMatchObject({ sockets: 1, cores: 2, threads: 2, hypervisor: 'vmware', hypervisorVendor: 'VMware, Inc. VMware Virtual Platform' });
  });

  test('is unavailable, not empty, when /proc/cpuinfo cannot be read', async () => {
    const tree = await scratchTree();
    try {
      expect(await collectCpuInventory(treeContext(tree.root))).toEqual({ unavailable: 'cpu inventory: /proc/cpuinfo not readable' });
    } finally {
      await tree.cleanup();
    }
  });
});
