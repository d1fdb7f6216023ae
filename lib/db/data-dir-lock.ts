import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../process-alive';

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database at ${dataDir} is in use by another inferwatch process (pid ${pid}). ` +
        'Stop that process, or set INFERWATCH_DATA_DIR to another folder, or DATABASE_URL to a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * PGlite does not lock its folder and two processes writing it corrupt it, so the first process holds a lock file
 * with its pid. A lock left by a dead process (kill -9) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const lockPath = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
      if (holder === process.pid) return () => fs.rmSync(lockPath, { force: true });
      if (Number.isInteger(holder) && isProcessAlive(holder)) throw new DataDirLockedError(dataDir, holder);
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}
