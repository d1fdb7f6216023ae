import 'server-only';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db';
import { createEnrollmentKey } from './enrollment-keys';
import { ENROLLMENT_KEY_PREFIX, hashToken } from './tokens';

async function isUsableKey(db: Database, key: string): Promise<boolean> {
  if (!key.startsWith(ENROLLMENT_KEY_PREFIX)) return false;
  const [row] = await db.sql.query<{ id: number }>(
    `SELECT id FROM enrollment_keys
      WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [hashToken(key)],
  );
  return row !== undefined;
}

/**
 * The key `npm start` hands its local agent: reused while the file (mode 0600) holds a valid key, otherwise a new
 * key named "local" in region "local" is created and written there. Returns the plaintext key.
 */
export async function ensureLocalEnrollmentKey(db: Database, filePath: string): Promise<string> {
  const existing = fs.existsSync(filePath) ? fs.readFileSync(filePath, 'utf8').trim() : '';
  if (existing && (await isUsableKey(db, existing))) {
    fs.chmodSync(filePath, 0o600);
    return existing;
  }
  const created = await createEnrollmentKey({ name: 'local', region: 'local', labels: {} }, db);
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  fs.writeFileSync(filePath, `${created.key}\n`, { mode: 0o600 });
  fs.chmodSync(filePath, 0o600);
  return created.key;
}
