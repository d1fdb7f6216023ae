import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { MINUTE_QUANTILES, REPORT_LEDGER, ROLLUP_BASES, TABLES as SERIES_TABLES, type SeriesTable } from '../../../lib/series/tables';

/** The raw series tables ingest writes, with the per-item views readers select through. */
const RAW_SERIES = [...Object.values(SERIES_TABLES).flatMap((t: SeriesTable) => (t.view ? [t.name, t.view] : [t.name]))];
/** The rollups lib/series computes from them. */
const ROLLUPS = [...ROLLUP_BASES.flatMap((base) => [`${base}_1m`, `${base}_1h`]), MINUTE_QUANTILES.table];

const SERIES_READERS = ['lib/series/', 'lib/alerts/read/', 'lib/fleet/', 'lib/findings/read/', 'lib/findings/latency/read/'];

/**
 * One owner per table (docs/data-layer.md): only the owner writes a table; a read model listed as a reader may join it
 * into a page's or an engine's query, read-only. Paths are files, or folders ending in '/'. Every table and view the
 * migrations create has an entry.
 */
const TABLES: Record<string, { owner: string; readers?: string[] }> = {
  _prisma_migrations: { owner: 'lib/db/migrate.ts', readers: ['lib/db/migrate-cli.ts'] },
  inferwatch_daily_partitioned: { owner: 'lib/db/partitions.ts' },
  hosts: {
    owner: 'lib/hosts/store.ts',
    readers: ['lib/alerts/read/', 'lib/fleet/', 'lib/series/', 'lib/findings/read/', 'lib/findings/latency/read/'],
  },
  token_revocation_version: { owner: 'lib/hosts/store.ts' },
  enrollment_keys: { owner: 'lib/auth/enrollment-keys.ts' },
  users: { owner: 'lib/auth/users.ts' },
  sessions: { owner: 'lib/auth/sessions.ts' },
  api_tokens: { owner: 'lib/auth/api-tokens.ts' },
  audit_log: { owner: 'lib/auth/audit.ts' },
  ...Object.fromEntries(RAW_SERIES.map((table) => [table, { owner: 'lib/ingest/write/', readers: SERIES_READERS }])),
  [REPORT_LEDGER.name]: { owner: 'lib/ingest/write/', readers: ['lib/hosts/store.ts', 'lib/alerts/read/heard.ts', 'lib/findings/read/facts/hosts.ts'] },
  inventory_snapshots: { owner: 'lib/ingest/write/inventory.ts', readers: ['lib/fleet/', 'lib/findings/read/', 'lib/findings/latency/read/'] },
  ...Object.fromEntries(ROLLUPS.map((table) => [table, { owner: 'lib/series/rollup-sql.ts', readers: SERIES_READERS }])),
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

/**
 * SQL that names its table through an interpolation (`FROM ${spec.table}`, `${base}_1m`): the tables each expression can
 * name, resolved here from lib/series/tables.ts, which every such name derives from. The scanner finds every
 * interpolated table; one this list cannot resolve fails the test, so a new one is resolved before it lands. `cte`:
 * a WITH query's name built the same way, not a table.
 */
const SERIES = [...RAW_SERIES, ...ROLLUPS];
const INTERPOLATED: Record<string, readonly string[] | 'cte'> = {
  // lib/series/rollup-sql.ts and quantile-sql.ts: raw rows in, rollups out.
  'spec.raw': RAW_SERIES,
  source: SERIES,
  'spec.base _1m': ROLLUPS,
  target: ROLLUPS,
  'MINUTE_QUANTILES.table': ROLLUPS,
  'name _grouped': 'cte',
  'name _per_key': 'cte',
  'name _summary': 'cte',
  'name _keys': 'cte',
  // The writers: COPY and INSERT … unnest per series table.
  'spec.table': RAW_SERIES,
  // Read models choosing raw rows or a rollup level per segment of a range.
  table: SERIES,
  'source.raw': RAW_SERIES,
  arrays: RAW_SERIES,
  'source.rollupBase _1m': ROLLUPS,
  'source.rollupBase _1h': ROLLUPS,
  'base _': ROLLUPS,
  'source.rolledUpAs.table': ROLLUPS,
  'steal.table': SERIES,
  'connect.table': SERIES,
  'HISTOGRAMS[level]': ROLLUPS,
  'LATENCY_TABLE[segment.resolution]': SERIES,
  '(query.byRegion ? REGION_SOURCE : HOST_SOURCE)[segment.resolution]': SERIES,
  't.name': RAW_SERIES,
  'CPU.name': RAW_SERIES,
  // lib/findings/read/facts: every host, or the given ones through unnest.
  'hostSource(hostIds, 3)': ['hosts'],
  'hostSource(hostIds, 4)': ['hosts'],
};

const ROOT = path.resolve(import.meta.dirname, '../../..');
const WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|COPY)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/gi;
/** Brackets an interpolation's expression in a literal's text, so a table named by one is seen as such. */
const MARK = '§';
const INTERPOLATED_TABLE = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|COPY|FROM|JOIN)\s+(?:ONLY\s+)?§([^§]+)§([a-z0-9_]*)/g;
const WRITES_INTERPOLATED = /^(INSERT|UPDATE|DELETE|TRUNCATE|COPY)/;
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
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const texts: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      texts.push(node.head.text + node.templateSpans.map((s) => `${MARK}${s.expression.getText(source)}${MARK}${s.literal.text}`).join(''));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

const unresolved: string[] = [];

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
      for (const [, keyword, expression, suffix] of text.matchAll(INTERPOLATED_TABLE)) {
        const name = suffix ? `${expression} ${suffix}` : expression!;
        const tables = INTERPOLATED[name];
        if (tables === undefined) unresolved.push(`${file}: ${keyword} \${${expression}}${suffix}`);
        else if (tables !== 'cte') for (const table of tables) uses.push({ file, table, write: WRITES_INTERPOLATED.test(keyword!) });
      }
    }
  }
  return uses;
}

const within = (file: string, place: string) => (place.endsWith('/') ? file.startsWith(place) : file === place);

test('a table is written only by its owner, and read only by its owner and the read models it lists', () => {
  const uses = tableUses();
  expect(uses.some((u) => u.table === 'hosts' && u.write), 'the scanner sees writes').toBe(true);
  expect(uses.some((u) => u.table === 'host_samples_1m' && u.write), 'the scanner resolves interpolated names').toBe(true);
  expect(unresolved, 'interpolated table names the list above cannot resolve').toEqual([]);
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


/** Tables the owner test must know: every CREATE TABLE or VIEW in the migrations, and Prisma's own ledger. */
function migratedTables(): string[] {
  const dir = path.join(ROOT, 'prisma/migrations');
  const created = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [...fs.readFileSync(path.join(dir, entry.name, 'migration.sql'), 'utf8').matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)/gi)])
    .map((match) => match[1]!.toLowerCase());
  return [...new Set([...created, '_prisma_migrations'])].sort();
}

test('every table and view the migrations create has an owner, and every owned table exists', () => {
  const tables = migratedTables();
  expect(tables.length, 'the migrations parse').toBeGreaterThan(40);
  expect(Object.keys(TABLES).sort()).toEqual(tables);
});

/** Prisma's client methods that write, and the model each @@map names. */
const PRISMA_WRITE = /^(create|update|upsert|delete)/;
function prismaTables(): Map<string, string> {
  const schema = fs.readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8');
  return new Map(
    [...schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)].map(([, model, body]) => {
      const mapped = /@@map\("([^"]+)"\)/.exec(body!)?.[1];
      return [model![0]!.toLowerCase() + model!.slice(1), mapped ?? model!];
    }),
  );
}

test('tables served by the Prisma client are written and read only by their owners', () => {
  const tables = prismaTables();
  const uses: Use[] = [];
  for (const full of [...sourceFiles(path.join(ROOT, 'lib')), ...sourceFiles(path.join(ROOT, 'app'))]) {
    const file = path.relative(ROOT, full);
    for (const [, model, method] of fs.readFileSync(full, 'utf8').matchAll(/\bprisma\.(\w+)\.(\w+)\(/g)) {
      const table = tables.get(model!);
      if (table) uses.push({ file, table, write: PRISMA_WRITE.test(method!) });
    }
  }
  expect(uses.some((u) => u.table === 'users' && u.write), 'the scanner sees Prisma writes').toBe(true);
  const strays = uses
    .filter(({ file, table, write }) => {
      const { owner, readers = [] } = TABLES[table]!;
      return !within(file, owner) && (write || !readers.some((reader) => within(file, reader)));
    })
    .map(({ file, table, write }) => `${file} ${write ? 'writes' : 'reads'} ${table}`);
  expect([...new Set(strays)].sort()).toEqual([]);
});
