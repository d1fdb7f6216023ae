import { describeTarget, sameDatabase, type DatabaseTarget } from '../db/target';
import type { RunningServer } from './server-file';

/** Where `npm run admin` writes: the database itself, the server that holds it, or nowhere (with the fix). */
export type AdminRoute =
  | { via: 'database' }
  | { via: 'server'; server: RunningServer }
  | { via: 'refused'; message: string };

/** What answers /api/health on the configured port, when no server file names it. */
export interface AnsweringServer {
  url: string;
  databaseKind: DatabaseTarget['kind'];
}

/**
 * A command must land in the database the server reads: writing elsewhere prints "created" for a user who then cannot
 * sign in. The server file (same state dir) names the server's database; without one, a server answering on the
 * configured port still tells its kind of database.
 */
export function routeAdminCommand(target: DatabaseTarget, running: RunningServer | null, answering: AnsweringServer | null, usage: string): AdminRoute {
  if (running) {
    if (!sameDatabase(running.database, target)) {
      return {
        via: 'refused',
        message:
          `the inferwatch server running here (pid ${running.pid}, ${running.url}) uses ${describeTarget(running.database)}, ` +
          `but this command would write to ${describeTarget(target)}, which that server does not read.\n` +
          (running.database.kind === 'server'
            ? `Run it with the server's database: DATABASE_URL=${running.database.url} ${usage}`
            : `Run it without DATABASE_URL (and with the server's INFERWATCH_DATA_DIR, if it sets one): ${usage}`),
      };
    }
    // One process may open the embedded database: the server that holds it does the writing.
    return running.database.kind === 'embedded' ? { via: 'server', server: running } : { via: 'database' };
  }
  if (answering && answering.databaseKind !== target.kind) {
    const theirs = answering.databaseKind === 'server' ? 'a PostgreSQL server' : 'its embedded database';
    return {
      via: 'refused',
      message:
        `the inferwatch server answering at ${answering.url} uses ${theirs}, but this command would write to ${describeTarget(target)}.\n` +
        `Run it with the server's environment (its DATABASE_URL and INFERWATCH_STATE_DIR): ${usage}`,
    };
  }
  return { via: 'database' };
}
