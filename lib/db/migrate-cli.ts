import { serverEnvironmentOrExit } from '../server/environment';
import { z } from 'zod';
import { queryRow } from './rows';
import { describeTarget } from './target';
import { openDatabase } from './open';

const { database: target, databasePools } = serverEnvironmentOrExit();
const db = await openDatabase(target, databasePools);
const row = await queryRow(db.sql, '_prisma_migrations', z.object({ n: z.number().int() }), 'SELECT count(*)::int AS n FROM "_prisma_migrations"');
console.log(`${describeTarget(target)}: schema up to date (${row?.n ?? 0} migrations applied)`);
await db.close();
