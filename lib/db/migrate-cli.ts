import { serverEnvironmentOrExit } from '../server/environment';
import { describeTarget } from './target';
import { openDatabase } from './open';

const { database: target, databasePools } = serverEnvironmentOrExit();
const db = await openDatabase(target, databasePools);
const [row] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
console.log(`${describeTarget(target)}: schema up to date (${row?.n ?? 0} migrations applied)`);
await db.close();
