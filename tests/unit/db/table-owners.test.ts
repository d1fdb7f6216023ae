import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

/**
 * One owner per table (docs/data-layer.md): only the owner writes a table; a read model listed as a reader may join it
 * into a page's or an engine's query, read-only. Paths are files, or folders ending in '/'.
 */
const TABLES: Record<string, { owner: string; readers?: string[] }> = {
  hosts: {
    owner: 'lib/hosts/store.ts',
    readers: ['lib/alerts/read/', 'lib/fleet/', 'lib/series/', 'lib/findings/read/', 'lib/findings/latency/'],
  },
  token_revocation_version: { owner: 'lib/hosts/store.ts' },
  enrollment_keys: { owner: 'lib/auth/enrollment-keys.ts' },
  report_ledger: { owner: 'lib/ingest/write/', readers: ['lib/hosts/store.ts', 'lib/alerts/read/heard.ts', 'lib/findings/read/read-facts.ts'] },
  inventory_snapshots: { owner: 'lib/ingest/write/inventory.ts', readers: ['lib/fleet/', 'lib/findings/read/', 'lib/findings/latency/'] },
  series_rollup_watermarks: { owner: 'lib/series/rollup.ts' },
  rollup_dirty_minutes: { owner: 'lib/series/late-minutes.ts', readers: ['lib/series/rollup.ts'] },
  findings: { owner: 'lib/findings/store/', readers: ['lib/findings/read/', 'lib/fleet/', 'lib/alerts/read/open-findings.ts'] },
  finding_threshold_overrides: { owner: 'lib/findings/store/threshold-overrides.ts' },
  residency_policies: { owner: 'lib/findings/store/residency-policies.ts' },
  finding_effects: { owner: 'lib/findings/store/finding-effects.ts', readers: ['lib/findings/read/', 'lib/fleet/host-annotations.ts'] },
  alert_rules: { owner: 'lib/alerts/store/rules.ts', readers: ['lib/fleet/host-annotations.ts'] },
  // Written by the engine's cycle (active-alerts.ts) and by acknowledgements through the API (list-alerts.ts).
  alerts: { owner: 'lib/alerts/store/', readers: ['lib/fleet/host-annotations.ts'] },
  alert_silences: { owner: 'lib/alerts/store/silences.ts' },
  alert_channels: { owner: 'lib/alerts/channels/channel-store.ts', readers: ['lib/alerts/store/deliveries.ts'] },
  alert_deliveries: { owner: 'lib/alerts/store/deliveries.ts' },
};

const ROOT = path.resolve(import.meta.dirname, '../../..');
const WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|COPY)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/gi;
const READ = /\b(?:FROM|JOIN)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/gi;

interface Use {
  file: string;
  table: string;
  write: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The text of every string and template literal, where SQL lives; comments and code are left out. */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const texts: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateExpression(node)) texts.push([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ? '));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

function tableUses(): Use[] {
  const uses: Use[] = [];
  for (const full of [...sourceFiles(path.join(ROOT, 'lib')), ...sourceFiles(path.join(ROOT, 'app'))]) {
    const file = path.relative(ROOT, full);
    for (const text of literals(full)) {
      for (const [pattern, write] of [[WRITE, true], [READ, false]] as const) {
        for (const match of text.matchAll(pattern)) {
          const table = match[1]!.toLowerCase();
          if (table in TABLES) uses.push({ file, table, write });
        }
      }
    }
  }
  return uses;
}

const within = (file: string, place: string) => (place.endsWith('/') ? file.startsWith(place) : file === place);

test('a table is written only by its owner, and read only by its owner and the read models it lists', () => {
  const uses = tableUses();
  expect(uses.some((u) => u.table === 'hosts' && u.write), 'the scanner sees writes').toBe(true);
  const strays = uses
    .filter(({ file, table, write }) => {
      const { owner, readers = [] } = TABLES[table]!;
      if (within(file, owner)) return false;
      return write || !readers.some((reader) => within(file, reader));
    })
    .map(({ file, table, write }) => `${file} ${write ? 'writes' : 'reads'} ${table}`);
  expect([...new Set(strays)].sort()).toEqual([]);
});

test('every owner and reader named above exists', () => {
  for (const { owner, readers = [] } of Object.values(TABLES)) {
    for (const place of [owner, ...readers]) expect(fs.existsSync(path.join(ROOT, place)), place).toBe(true);
  }
});
