import { randomBytes } from 'node:crypto';
import { closeDb, getDb } from '../db';
import { DataDirLockedError } from '../db/data-dir-lock';
import { describeTarget } from '../db/target';
import { toErrorEnvelope } from '../errors';
import { isLoopbackHost } from '../protocol/loopback';
import { serverEnvironmentOrExit } from '../server/environment';
import { provideServerSettings } from '../server/provide-settings';
import { findRunningServer } from './server-file';
import { databaseAdminApi, serverAdminApi, type AdminApi } from './admin-api';
import { ADMIN_USAGE, parseAdminCommand, UsageError, type AdminCommand } from './command';
import { routeAdminCommand, type AnsweringServer } from './where';

async function run(cmd: Exclude<AdminCommand, { command: 'help' }>, api: AdminApi): Promise<void> {
  switch (cmd.command) {
    case 'keys create': {
      const created = await api.createKey(cmd.input);
      console.log(`created enrollment key ${created.id} "${created.name}" for region ${created.region}` +
        (created.expiresAt ? `, expires ${created.expiresAt}` : '') + (created.maxHosts !== null ? `, at most ${created.maxHosts} hosts` : ''));
      console.log(`key (shown once, store it now): ${created.key}`);
      return;
    }
    case 'keys list': {
      const keys = await api.listKeys();
      if (keys.length === 0) console.log('no enrollment keys');
      for (const k of keys) {
        const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'active';
        const cap = k.maxHosts === null ? 'any number of hosts' : `at most ${k.maxHosts} hosts`;
        console.log(`${k.id}\t${k.tokenPrefix}…\t${k.name}\t${k.region}\t${JSON.stringify(k.labels)}\t${state}\t${cap}`);
      }
      return;
    }
    case 'keys revoke': {
      const key = await api.revokeKey(cmd.keyId);
      console.log(`enrollment key ${key.id} revoked at ${key.revokedAt}`);
      return;
    }
    case 'hosts revoke-token':
      await api.revokeHostToken(cmd.hostId);
      console.log(`host ${cmd.hostId}: token revoked; it stays revoked until you approve a re-enrollment (hosts approve-reenroll ${cmd.hostId})`);
      return;
    case 'hosts approve-reenroll': {
      const approval = await api.approveReenrollment(cmd.hostId);
      console.log(`host ${approval.hostId} (region ${approval.region}): its next enrollment is let through until ${approval.approvedUntil}, once.`);
      console.log('On that machine, delete host-token.json in the agent\'s state directory (if it has one) and restart the agent with its enrollment key.');
      return;
    }
    case 'users create': {
      // Generated rather than typed on the command line, where shells keep history.
      const password = randomBytes(18).toString('base64url');
      const user = await api.createUser({ email: cmd.email, role: cmd.role, name: cmd.name, password });
      console.log(`created ${user.role} ${user.email} (user ${user.id})`);
      console.log(`password (shown once; change it after signing in): ${password}`);
      return;
    }
    case 'users list': {
      const users = await api.listUsers();
      if (users.length === 0) console.log('no users');
      for (const u of users) console.log(`${u.id}\t${u.email}\t${u.role}\t${u.disabledAt ? `disabled ${u.disabledAt}` : 'active'}`);
    }
  }
}

/** The server on the configured port, if one answers its health check within a second. */
async function answeringServer(host: string, port: number): Promise<AnsweringServer | null> {
  const url = `http://${host === '0.0.0.0' || host === '::' || isLoopbackHost(host) ? '127.0.0.1' : host}:${port}`;
  try {
    const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1_000) });
    const kind = ((await response.json()) as { database?: { kind?: unknown } }).database?.kind;
    return kind === 'server' || kind === 'embedded' ? { url, databaseKind: kind } : null;
  } catch {
    return null;
  }
}

function fail(message: string): void {
  console.error(`error: ${message}`);
  process.exitCode = 1;
}

let cmd: AdminCommand | undefined;
try {
  cmd = parseAdminCommand(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`error: ${err.message}\n${ADMIN_USAGE}`);
  process.exitCode = 2;
}
if (cmd?.command === 'help') console.log(ADMIN_USAGE);
else if (cmd) {
  const env = serverEnvironmentOrExit();
  provideServerSettings();
  const running = findRunningServer(env.stateDir);
  const answering = running ? null : await answeringServer(env.host, env.port);
  const route = routeAdminCommand(env.database, running, answering, `npm run admin -- ${process.argv.slice(2).join(' ')}`);
  if (route.via === 'refused') fail(route.message);
  else {
    const through = route.via === 'server' ? ` (through the server running here, pid ${route.server.pid})` : '';
    console.log(`database: ${describeTarget(env.database)}${through}`);
    try {
      await run(cmd, route.via === 'server' ? serverAdminApi(route.server) : databaseAdminApi(await getDb()));
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        fail(`${err.message} While a server holds it, run this command on that server's machine with its environment, or use Settings in its dashboard.`);
      } else {
        const { body } = toErrorEnvelope(err);
        fail(err instanceof Error && !('status' in err) && body.error.code === 'internal' ? err.message : body.error.message);
      }
    } finally {
      await closeDb();
    }
  }
}
