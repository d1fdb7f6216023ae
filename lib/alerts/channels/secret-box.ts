import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseSecretKey, SECRET_KEY_BYTES as KEY_BYTES } from './secret-key';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1:';

/**
 * Channel secrets are stored AES-256-GCM encrypted with a key the database does not hold: INFERWATCH_SECRET_KEY
 * (32 bytes, base64 or hex), or a key file created once beside the data (mode 0600). A database dump or reader
 * alone cannot use them; whoever holds the key file can (see docs/alerts.md for the trade-off).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
    this.key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed secret');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** The key file's key, creating the file (mode 0600) with a random key if there is none. */
export function loadOrCreateKeyFile(file: string): Buffer {
  try {
    return parseSecretKey(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(KEY_BYTES);
  try {
    fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseSecretKey(fs.readFileSync(file, 'utf8'));
    throw err;
  }
}

/** What the API shows of a secret: enough to tell two apart, too little to use. */
export function secretPrefix(secret: string): string {
  const visible = secret.startsWith('http') ? Math.min(32, Math.floor(secret.length / 2)) : Math.min(4, Math.floor(secret.length / 4));
  return `${secret.slice(0, visible)}…`;
}
