import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DiskInventory, Unavailable } from '../../lib/protocol';
import { listWholeDisks, resolveLink, SKIPPED_BY_DEFAULT } from './block-devices';
import { readOptional, rootedPath, unavailableFrom } from './read';
import { defineCollector } from './registration';
import type { CollectorContext } from './types';
import { boundedText, fittingText, parseCounter, unitsToBytes } from './values';

/** The protocol's bound on disks per report. */
export const MAX_DISKS = 256;

type DiskClass = DiskInventory['class'];

/** The [bracketed] entry of queue/scheduler, or the only entry when there is no choice. */
export function parseScheduler(text: string): string | null {
  const bracketed = /\[([^\]]+)\]/.exec(text);
  if (bracketed) return fittingText(bracketed[1], 64);
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.length === 1 ? fittingText(words[0], 64) : null;
}

/** queue/rotational is "0" or "1"; anything else is unknown, not "solid state". */
export function parseRotational(text: string): boolean | null {
  const flag = text.trim();
  return flag === '1' ? true : flag === '0' ? false : null;
}

/** The size file counts 512-byte sectors whatever the device's block size. */
export function parseSizeBytes(text: string): number | null {
  return unitsToBytes(parseCounter(text), 512);
}

export interface DiskFacts {
  name: string;
  rotational: boolean | null;
  /** Resolved sysfs path of the device's parent (the `device` link), e.g. .../nvme/nvme0. */
  devicePath: string | null;
  driver: string | null;
  model: string | null;
}

const VIRTUAL_MODELS = /^(QEMU|VBOX|Virtual disk|VMware|Msft Virtual|Google PersistentDisk|Amazon Elastic Block)/i;

export function classifyDisk(facts: DiskFacts): DiskClass {
  const { name, devicePath, driver, model } = facts;
  if (/^nvme/.test(name) || devicePath?.includes('/nvme/')) return 'nvme';
  if (/^x?vd[a-z]/.test(name) || driver === 'virtio_blk' || driver === 'vbd' || (model !== null && VIRTUAL_MODELS.test(model))) return 'virtual';
  // dm and md are whole devices, but stacked on others: their rotational flag says nothing about the media.
  if (/^(dm-|md)\d/.test(name)) return 'other';
  if (facts.rotational === false) return 'ssd';
  if (facts.rotational === true) return 'hdd';
  return 'other';
}

function readTrimmed(dir: string, ...parts: string[]): string | null {
  const text = readOptional(dir, ...parts);
  return text === undefined ? null : text.trim();
}

async function describeDisk(sysRoot: string, name: string): Promise<DiskInventory> {
  const dir = rootedPath(sysRoot, 'block', name);
  const rotational = readTrimmed(dir, 'queue', 'rotational');
  const devicePath = await realpath(path.join(dir, 'device')).catch(() => null);
  const driverDir = devicePath ? await resolveLink(path.join(devicePath, 'driver')) : null;
  const modelText = readTrimmed(dir, 'device', 'model');
  const model = modelText === null ? null : boundedText(modelText, 200) || null;
  const size = readTrimmed(dir, 'size');
  const scheduler = readTrimmed(dir, 'queue', 'scheduler');
  const hwQueues = await readdir(path.join(dir, 'mq'), { withFileTypes: true }).then(
    (entries) => entries.filter((e) => e.isDirectory()).length,
    () => null,
  );
  const facts: DiskFacts = {
    name,
    rotational: rotational === null ? null : parseRotational(rotational),
    devicePath,
    driver: driverDir ? path.basename(driverDir) : null,
    model,
  };
  return {
    device: name,
    class: classifyDisk(facts),
    model,
    rotational: facts.rotational,
    sizeBytes: size === null ? null : parseSizeBytes(size),
    hwQueues,
    scheduler: scheduler === null ? null : parseScheduler(scheduler),
  };
}

export async function collectDiskInventory(
  ctx: Pick<CollectorContext, 'sysRoot'>,
  options: { includeVirtual?: boolean } = {},
): Promise<DiskInventory[] | Unavailable> {
  try {
    const names = [...(listWholeDisks(ctx.sysRoot))]
      .filter((n) => (options.includeVirtual || !SKIPPED_BY_DEFAULT.test(n)) && fittingText(n, 200) === n)
      .sort()
      .slice(0, MAX_DISKS);
    return await Promise.all(names.map((name) => describeDisk(ctx.sysRoot, name)));
  } catch (err) {
    return unavailableFrom(err, 'disk inventory');
  }
}

export const diskInventoryCollector = defineCollector({
  name: 'disk-inventory',
  reads: ['/sys/block/<disk>/{size,queue,mq,device}'],
  cadence: 'inventory',
  create: () => ({ collect: (ctx) => collectDiskInventory(ctx) }),
  toReport: (disks) => ({ inventory: { disks } }),
});
