import fs from 'node:fs';
import path from 'node:path';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { SERIES_TABLES } from './series-tables';

// Prisma's CLI fetches a native schema engine at start-up, which these machines cannot; its wasm build can diff
// migrations against the schema offline, with an in-memory PGlite as the shadow database.
const prismaDir = path.dirname(new URL(import.meta.url).pathname);
const schemaPath = path.join(prismaDir, 'schema.prisma');
const migrationsDir = path.join(prismaDir, 'migrations');
const filters = { externalTables: SERIES_TABLES.map((t) => `public.${t}`), externalEnums: [] };

let wasmReady = false;
function loadWasm() {
  if (wasmReady) return;
  const wasmUrl = new URL('schema_engine_bg.wasm', import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasmUrl)), {
    './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
  });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  wasmReady = true;
}

function migrationsList() {
  const lock = path.join(migrationsDir, 'migration_lock.toml');
  const dirs = fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: fs.existsSync(lock) ? fs.readFileSync(lock, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((d) => ({
      path: d,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: fs.readFileSync(path.join(migrationsDir, d, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

/** The SQL that would bring the migrations' end state to schema.prisma; empty when they agree. */
export async function diffMigrationsToSchema(schema = fs.readFileSync(schemaPath, 'utf8')): Promise<string> {
  loadWasm();
  const pglite = new PGlite();
  const factory = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(pglite) as never);
  const engine = await bg.SchemaEngine.new({ datamodels: [[schemaPath, schema]] } as never, () => {}, factory as never);
  try {
    const list = migrationsList();
    const from = list.migrationDirectories.length ? { tag: 'migrations', ...list } : { tag: 'empty' };
    const result = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: true,
      filters,
    } as never);
    return (result as { exitCode: number; stdout: string }).exitCode === 2 ? (result as { stdout: string }).stdout : '';
  } finally {
    engine.free?.();
    await pglite.close();
  }
}

/** `npm run db:migration -- name`: writes the next migration folder from the schema diff. */
async function main() {
  const name = process.argv[2] ?? 'migration';
  const sql = await diffMigrationsToSchema();
  if (!sql.trim()) {
    console.log('schema.prisma and prisma/migrations agree: nothing to create');
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(migrationsDir, `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
  console.log(`created ${path.relative(process.cwd(), dir)}/migration.sql`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  await main();
}
