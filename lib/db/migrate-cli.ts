import { serverEnvironmentOrExit } from '../server/environment';
import { describeTarget } from './target';
import { openDatabase } from './open';

const target = serverEnvironmentOrExit().database;
const db = await openDatabase(target);
const [row] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
console.log(`${describeTarget(target)}: schema up to date (${row?.n ?? 0} migrations applied)`);
await db.close();
