import { revokeHostToken } from '../auth/authenticate-host';
import { enrollmentKeyIdSchema, enrollmentKeyInputSchema, parseDurationMs } from '../auth/enrollment-key-input';
import { createEnrollmentKey, listEnrollmentKeys, revokeEnrollmentKey } from '../auth/enrollment-keys';
import { closeDb, getDb } from '../db';
import { toErrorEnvelope } from '../errors';
import { parseArgs, parseLabels } from './parse-args';

const USAGE = `usage:
  npm run admin -- keys create --name NAME --region REGION [--label k=v ...] [--expires 30d]
  npm run admin -- keys list
  npm run admin -- keys revoke ID
  npm run admin -- hosts revoke-token HOST_ID`;

async function run(argv: string[]): Promise<void> {
  const { positional, options } = parseArgs(argv);
  const [area, verb, target] = positional;
  const one = (name: string) => options.get(name)?.at(-1);
  const db = await getDb();
  if (area === 'keys' && verb === 'create') {
    const expires = one('expires');
    const input = enrollmentKeyInputSchema.parse({
      name: one('name'),
      region: one('region'),
      labels: parseLabels(options.get('label') ?? []),
      expiresAt: expires ? new Date(Date.now() + parseDurationMs(expires)) : null,
    });
    const created = await createEnrollmentKey(db, input);
    console.log(`created enrollment key ${created.id} "${created.name}" for region ${created.region}` +
      (created.expiresAt ? `, expires ${created.expiresAt}` : ''));
    console.log(`key (shown once, store it now): ${created.key}`);
  } else if (area === 'keys' && verb === 'list') {
    const keys = await listEnrollmentKeys(db);
    if (keys.length === 0) console.log('no enrollment keys');
    for (const k of keys) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'active';
      console.log(`${k.id}\t${k.tokenPrefix}…\t${k.name}\t${k.region}\t${JSON.stringify(k.labels)}\t${state}`);
    }
  } else if (area === 'keys' && verb === 'revoke') {
    const key = await revokeEnrollmentKey(db, enrollmentKeyIdSchema.parse(target));
    console.log(`enrollment key ${key.id} revoked at ${key.revokedAt}`);
  } else if (area === 'hosts' && verb === 'revoke-token') {
    const hostId = enrollmentKeyIdSchema.parse(target);
    await revokeHostToken(db, hostId);
    console.log(`host ${hostId}: token revoked (re-enroll the agent to give it a new one)`);
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
}

try {
  await run(process.argv.slice(2));
} catch (err) {
  const { body } = toErrorEnvelope(err);
  console.error(`error: ${err instanceof Error && !('status' in err) && body.error.code === 'internal' ? err.message : body.error.message}`);
  process.exitCode = 1;
} finally {
  await closeDb();
}
