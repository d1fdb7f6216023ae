import { defineConfig } from 'prisma/config';
import { SERIES_TABLES } from './prisma/series-tables';

// The CLI is used offline for `generate` only; migrations are applied by lib/db/migrate.ts.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  experimental: { externalTables: true },
  tables: { external: [...SERIES_TABLES] },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/inferwatch' },
});
