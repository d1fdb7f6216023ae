import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, in a temp dir on a free port, that the test may stop and start: never the
 * machine's shared one. Built with the newest server under /usr/lib/postgresql (or PG_BIN).
 */
export interface ScratchCluster {
  url: string;
  /** `pg_ctl stop -m fast`: connections are cut, the server is gone until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function serverBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server under ${root} (set PG_BIN to the folder holding initdb and pg_ctl)`);
  return path.join(root, newest, 'bin');
}

/** initdb and postgres refuse to run as root: as root, run them as the postgres user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no postgres user to run the server as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}


export async function createScratchCluster(): Promise<ScratchCluster> {
  const bin = serverBinDir();
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-scratch-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', dataDir, ...args], { ...user, cwd: dir });
  await run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], { ...user, cwd: dir });
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pgCtl('start', '-w', '-t', '120', '-l', path.join(dir, 'server.log'), '-o', options);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: async () => {
      await pgCtl('stop', '-m', 'fast', '-w', '-t', '120');
    },
    async destroy() {
      await pgCtl('stop', '-m', 'immediate', '-w').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
