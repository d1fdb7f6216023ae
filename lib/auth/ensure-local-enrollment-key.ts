import 'server-only';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db';
import { createEnrollmentKey, enrollmentKeyRefusal, findEnrollmentKey } from './enrollment-keys';

async function isUsableKey(db: Database, key: string): Promise<boolean> {
  return enrollmentKeyRefusal(await findEnrollmentKey(db, key), new Date()) === null;
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
  const created = await createEnrollmentKey(db, { name: 'local', region: 'local', labels: {} });
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  fs.writeFileSync(filePath, `${created.key}\n`, { mode: 0o600 });
  fs.chmodSync(filePath, 0o600);
  return created.key;
}
