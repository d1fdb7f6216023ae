import { randomBytes } from 'node:crypto';
import { recordAudit } from '../auth/audit';
import { revokeHostToken } from '../auth/authenticate-host';
import { approveReenrollment } from '../auth/enroll-host';
import { createEnrollmentKey, listEnrollmentKeys, revokeEnrollmentKey } from '../auth/enrollment-keys';
import { createUser, listUsers } from '../auth/users';
import { closeDb, getDb } from '../db';
import { toErrorEnvelope } from '../errors';
import { ADMIN_USAGE, parseAdminCommand, UsageError, type AdminCommand } from './command';

async function run(cmd: Exclude<AdminCommand, { command: 'help' }>): Promise<void> {
  const db = await getDb();
  switch (cmd.command) {
    case 'keys create': {
      const created = await createEnrollmentKey(db, cmd.input);
      console.log(`created enrollment key ${created.id} "${created.name}" for region ${created.region}` +
        (created.expiresAt ? `, expires ${created.expiresAt}` : '') + (created.maxHosts !== null ? `, at most ${created.maxHosts} hosts` : ''));
      console.log(`key (shown once, store it now): ${created.key}`);
      return;
    }
    case 'keys list': {
      const keys = await listEnrollmentKeys(db);
      if (keys.length === 0) console.log('no enrollment keys');
      for (const k of keys) {
        const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'active';
        const cap = k.maxHosts === null ? 'any number of hosts' : `at most ${k.maxHosts} hosts`;
        console.log(`${k.id}\t${k.tokenPrefix}…\t${k.name}\t${k.region}\t${JSON.stringify(k.labels)}\t${state}\t${cap}`);
      }
      return;
    }
    case 'keys revoke': {
      const key = await revokeEnrollmentKey(db, cmd.keyId);
      console.log(`enrollment key ${key.id} revoked at ${key.revokedAt}`);
      return;
    }
    case 'hosts revoke-token':
      await revokeHostToken(db, cmd.hostId);
      console.log(`host ${cmd.hostId}: token revoked; it stays revoked until you approve a re-enrollment (hosts approve-reenroll ${cmd.hostId})`);
      return;
    case 'hosts approve-reenroll': {
      const approval = await approveReenrollment(db, cmd.hostId);
      console.log(`host ${approval.hostId} (region ${approval.region}): its next enrollment is let through until ${approval.approvedUntil}, once.`);
      console.log('On that machine, delete host-token.json in the agent\'s state directory (if it has one) and restart the agent with its enrollment key.');
      return;
    }
    case 'users create': {
      // Generated rather than typed on the command line, where shells keep history.
      const password = randomBytes(18).toString('base64url');
      const user = await createUser(db, { email: cmd.email, role: cmd.role, name: cmd.name, password });
      await recordAudit(db, { kind: 'system', userId: null, name: 'npm run admin' }, '', { action: 'user.create', target: `user ${user.id} (${user.email})`, detail: { role: user.role } });
      console.log(`created ${user.role} ${user.email} (user ${user.id})`);
      console.log(`password (shown once; change it after signing in): ${password}`);
      return;
    }
    case 'users list': {
      const users = await listUsers(db);
      if (users.length === 0) console.log('no users');
      for (const u of users) console.log(`${u.id}\t${u.email}\t${u.role}\t${u.disabledAt ? `disabled ${u.disabledAt}` : 'active'}`);
    }
  }
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
  try {
    await run(cmd);
  } catch (err) {
    const { body } = toErrorEnvelope(err);
    console.error(`error: ${err instanceof Error && !('status' in err) && body.error.code === 'internal' ? err.message : body.error.message}`);
    process.exitCode = 1;
  } finally {
    await closeDb();
  }
}
