import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../process-alive';
import { z } from 'zod';
import { withoutPassword } from '../db/target';

/**
 * What a running server tells the tools on its machine (`npm run admin`): its pid, the loopback address it answers
 * on, the database it holds, and the admin CLI token of this start. 0600 in the state dir; removed on shutdown.
 */
const serverFileSchema = z.object({
  pid: z.number().int().positive(),
  url: z.string().url(),
  database: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('server'), url: z.string() }),
    z.object({ kind: z.literal('embedded'), dataDir: z.string() }),
  ]),
  adminToken: z.string().min(1),
});
export type RunningServer = z.infer<typeof serverFileSchema>;

const SERVER_FILE = 'server.json';

export function writeServerFile(stateDir: string, server: Omit<RunningServer, 'pid'>): () => void {
  const file = path.join(stateDir, SERVER_FILE);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const content: RunningServer = { pid: process.pid, ...server, database: withoutPassword(server.database) };
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(content), { mode: 0o600 });
  fs.renameSync(temp, file);
  return () => {
    // A later server on the same state dir wrote its own: leave that one.
    if (readServerFile(stateDir)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

function readServerFile(stateDir: string): RunningServer | null {
  try {
    return serverFileSchema.parse(JSON.parse(fs.readFileSync(path.join(stateDir, SERVER_FILE), 'utf8')));
  } catch {
    return null;
  }
}

/** The server whose file is in `stateDir`, when its process still runs (a file left by a killed server is not). */
export function findRunningServer(stateDir: string): RunningServer | null {
  const server = readServerFile(stateDir);
  return server && server.pid !== process.pid && isProcessAlive(server.pid) ? server : null;
}

