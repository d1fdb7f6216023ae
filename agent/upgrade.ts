import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

export interface UpgradeOptions {
  /** The inferwatch server that serves /agent/inferwatch-agent.mjs and its .sha256. */
  server: string;
  /** The installed bundle to replace: the file this agent runs from. */
  target: string;
  /** The node binary that runs the self-check (this process's). */
  nodePath: string;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

export type UpgradeOutcome =
  | { kind: 'current'; version: string }
  | { kind: 'upgraded'; from: string; to: string; previous: string };

export class UpgradeError extends Error {}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function download(url: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new UpgradeError(`could not download ${url}: ${(err as Error).message}`);
  }
  if (!response.ok) throw new UpgradeError(`could not download ${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

// Runs FILE --version by importing it, so a load error is reported as one short line: node's own report of it quotes
// the whole offending line — most of a minified bundle — and is cut short when node exits before the pipe drains.
const IMPORT_AND_RUN =
  "import(require('node:url').pathToFileURL(process.argv[1]).href).catch((e) => {" +
  " process.stderr.write(String(e && e.name) + ': ' + String(e && e.message).split('\\n')[0] + '\\n'); process.exit(1); })";

/** What `node FILE --version` prints; it loads the whole bundle, so a file that cannot start fails here. */
function selfCheck(nodePath: string, file: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(nodePath, ['-e', IMPORT_AND_RUN, file, '--version'], { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      const version = stdout.trim();
      const reason = stderr.trim().split('\n')[0]!.slice(0, 300) || err?.message.split('\n')[0];
      if (err) reject(new UpgradeError(`it does not start: ${reason}`));
      else if (!/^\d+\.\d+\.\d+\S*$/.test(version)) reject(new UpgradeError(`its --version printed ${JSON.stringify(version.slice(0, 80))}, not a version`));
      else resolve(version);
    });
  });
}

/**
 * Replaces the installed agent with the server's: the download must match the SHA-256 the server publishes; the old
 * file is kept beside it as `.previous`; the new one goes in by rename (never half-written), must then pass its
 * self-check from where it was installed, and is swapped back out for the old one when it does not.
 */
export async function upgradeAgent(options: UpgradeOptions): Promise<UpgradeOutcome> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const base = options.server.replace(/\/+$/, '');
  const bundle = await download(`${base}/agent/inferwatch-agent.mjs`, fetchImpl, timeoutMs);
  const published = (await download(`${base}/agent/inferwatch-agent.mjs.sha256`, fetchImpl, timeoutMs)).toString('utf8').split(/\s/)[0]!;
  if (!/^[0-9a-f]{64}$/.test(published)) throw new UpgradeError(`${base} published no SHA-256 for its agent: kept the installed one`);
  const actual = sha256(bundle);
  if (actual !== published) {
    throw new UpgradeError(`the downloaded agent's SHA-256 is ${actual} but ${base} publishes ${published}: kept the installed one`);
  }

  const installed = await fs.readFile(options.target).catch((err: NodeJS.ErrnoException) => {
    throw new UpgradeError(`cannot read the installed agent ${options.target}: ${err.code ?? err.message}`);
  });
  const from = await selfCheck(options.nodePath, options.target, timeoutMs).catch(() => 'unknown');
  if (sha256(installed) === published) return { kind: 'current', version: from };

  const mode = (await fs.stat(options.target)).mode & 0o777;
  const incoming = `${options.target}.new`;
  const previous = `${options.target}.previous`;
  await fs.writeFile(incoming, bundle, { mode });
  await fs.chmod(incoming, mode);
  await fs.copyFile(options.target, previous);
  await fs.rename(incoming, options.target);
  try {
    const to = await selfCheck(options.nodePath, options.target, timeoutMs);
    return { kind: 'upgraded', from, to, previous };
  } catch (err) {
    const restore = `${options.target}.restore`;
    await fs.copyFile(previous, restore);
    await fs.chmod(restore, mode);
    await fs.rename(restore, options.target);
    throw new UpgradeError(`the server's agent was installed but ${(err as Error).message}; put back the previous agent (${from})`);
  }
}
