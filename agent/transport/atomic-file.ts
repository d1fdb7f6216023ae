import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

export const TEMP_PREFIX = '.tmp-';

/** Writes via temp file + fsync + rename + directory fsync, so a crash leaves the old or the new file, never half. */
export async function writeFileAtomic(file: string, data: string, mode = 0o644): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `${TEMP_PREFIX}${path.basename(file)}-${randomBytes(4).toString('hex')}`);
  // Created with its final mode, so a secret is never readable by others, not even for a moment.
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw err;
  }
  await handle.close();
  await rename(temp, file);
  await syncDir(dir);
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
