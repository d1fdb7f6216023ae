import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  TREE_PAIRS,
  collectSections,
  copyFixtures,
  pairUnder,
  refusedSections,
  regularFiles,
  unstorable,
  type Sections,
  type TreePair,
} from './section-runner';

// Issue #14: one file the agent cannot parse must cost the field or the item it describes, never a whole section.

type SectionKey = Exclude<keyof Sections, 'inventory'> | `inventory.${keyof Sections['inventory']}`;

/** Which sections each file of the golden tree feeds: garbling it may change those and nothing else. */
const FEEDS: [RegExp, SectionKey[]][] = [
  [/^proc\/(stat|loadavg)$/, ['cpu']],
  [/^proc\/diskstats$/, ['disks']],
  [/^proc\/pressure\/(cpu|io|memory)$/, ['pressure']],
  [/^proc\/(meminfo|sys\/kernel\/osrelease)$/, ['inventory.host']],
  [/^proc\/cpuinfo$/, ['inventory.cpu']],
  [/^proc\/self\/mountinfo$/, ['cgroups', 'inventory.cgroup', 'inventory.dataPaths', 'inventory.processes']],
  // Captured for completeness; the agent reads the mount table, not its own group.
  [/^proc\/self\/cgroup$/, []],
  // comm and cmdline decide whether the process is watched at all; its group is sampled with it.
  [/^proc\/21151\/(comm|cmdline|stat|status|cgroup)$/, ['processes', 'cgroups', 'inventory.processes']],
  [/^proc\/21151\/(environ|maps)$/, ['inventory.processes']],
  [/^sys\/devices\/pci0000:00\/.*\/block\/vda\//, ['inventory.disks', 'inventory.dataPaths']],
  [/^sys\/devices\/system\/cpu\/online$/, ['inventory.host', 'inventory.cpu', 'cgroups', 'inventory.cgroup', 'inventory.processes']],
  [/^sys\/devices\/system\/(node|clocksource)\//, ['inventory.cpu']],
  [/^sys\/fs\/cgroup\//, ['cgroups', 'inventory.cgroup', 'inventory.processes']],
];

const VARIANTS: [string, (text: string) => string | null][] = [
  ['empty', () => ''],
  ['non-numeric', (text) => text.replace(/\d+/g, 'x')],
  ['missing', () => null],
];

const SECTION_KEYS: SectionKey[] = [
  'cpu', 'pressure', 'disks', 'cgroups', 'processes',
  'inventory.host', 'inventory.cpu', 'inventory.disks', 'inventory.dataPaths', 'inventory.cgroup', 'inventory.processes',
];
const sectionOf = (sections: Sections, key: SectionKey): unknown =>
  key.startsWith('inventory.') ? sections.inventory[key.slice('inventory.'.length) as keyof Sections['inventory']] : sections[key as keyof Sections];

let base: string;
let cleanup: () => Promise<void>;
let golden: TreePair;
let clean: Sections;
let goldenFiles: string[];

beforeAll(async () => {
  ({ base, cleanup } = await copyFixtures());
  golden = pairUnder(base, TREE_PAIRS.find((p) => p.name === 'golden')!);
  clean = await collectSections(golden);
  const after = path.join(base, 'golden', 'after');
  goldenFiles = (await regularFiles(after)).map((file) => path.relative(after, file));
});
afterAll(() => cleanup());

/** Runs the collectors with one file of the copy changed (null: removed), then puts the file back. */
async function withFile(file: string, change: (text: string) => string | null): Promise<Sections> {
  const original = await readFile(file);
  const changed = change(original.toString('utf8'));
  try {
    if (changed === null) await rm(file);
    else await writeFile(file, changed);
    return await collectSections(golden);
  } finally {
    await writeFile(file, original);
  }
}

describe('one odd file in the captured golden tree', () => {
  test('the clean tree gives every section as data the protocol accepts', () => {
    expect(refusedSections(clean)).toEqual([]);
    expect(clean.inventory.disks).toEqual([expect.objectContaining({ device: 'vda', class: 'virtual' })]);
  });

  test('every file the collectors read is listed in FEEDS', () => {
    expect(goldenFiles.length).toBeGreaterThan(30);
    expect(goldenFiles.filter((file) => !FEEDS.some(([pattern]) => pattern.test(file)))).toEqual([]);
  });

  test.each(VARIANTS)('%s: each file changes only the sections it feeds, and those stay valid and storable', async (_, change) => {
    for (const file of goldenFiles) {
      const feeds = FEEDS.find(([pattern]) => pattern.test(file))![1];
      const sections = await withFile(path.join(base, 'golden', 'after', file), change);
      expect(refusedSections(sections), file).toEqual([]);
      expect(unstorable(sections), file).toBeNull();
      for (const key of SECTION_KEYS.filter((k) => !feeds.includes(k))) {
        expect(sectionOf(sections, key), `${file} changed ${key}`).toEqual(sectionOf(clean, key));
      }
    }
  });
});

describe('one odd attribute of one disk (the issue #14 report)', () => {
  const DISKS = ['nvme0n1', 'sda', 'sdb', 'vdb'];
  const ATTRIBUTES: [string, string, string][] = [
    ['size', 'sizeBytes', 'x'],
    ['queue/rotational', 'rotational', 'maybe'],
    ['queue/scheduler', 'scheduler', `[${'s'.repeat(100)}]`],
  ];
  let mixed: TreePair;
  let cleanDisks: unknown[];
  beforeAll(async () => {
    mixed = pairUnder(base, TREE_PAIRS.find((p) => p.name === 'handmade/mixed-disks')!);
    cleanDisks = (await collectSections(mixed)).inventory.disks as unknown[];
  });

  test.each(ATTRIBUTES)('%s that does not parse makes %s null for that device alone; the other disks keep their class', async (file, field, garbage) => {
    for (const device of DISKS) {
      const attributeFile = path.join(mixed.after.sysRoot, 'block', device, file);
      const original = await readFile(attributeFile);
      await writeFile(attributeFile, `${garbage}\n`);
      try {
        const sections = await collectSections(mixed);
        expect(refusedSections(sections)).toEqual([]);
        const disks = sections.inventory.disks as Record<string, unknown>[];
        const expected = (cleanDisks as Record<string, unknown>[]).map((d) =>
          d.device !== device ? d : { ...d, [field]: null, ...(field === 'rotational' && (d.class === 'ssd' || d.class === 'hdd') ? { class: 'other' } : {}) },
        );
        expect(disks, device).toEqual(expected);
      } finally {
        await writeFile(attributeFile, original);
      }
    }
  });
});
