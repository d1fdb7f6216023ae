import 'server-only';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors';

export interface AgentBundle {
  bytes: Buffer;
  sha256: string;
}

export class AgentBundleMissingError extends AppError {
  constructor(file: string) {
    super(503, 'agent_bundle_missing', `the agent bundle ${file} is not built: run npm run build on the server`);
  }
}

/** Where `npm run build` writes the single-file agent (scripts/bundle.mjs). */
export function agentBundlePath(root: string): string {
  return path.join(root, 'dist', 'inferwatch-agent.mjs');
}

let cached: { key: string; bundle: AgentBundle } | undefined;

/** The built agent and its SHA-256, hashed again only when a build replaced the file. */
export async function readAgentBundle(root: string): Promise<AgentBundle> {
  const file = agentBundlePath(root);
  const stat = await fs.stat(file).catch(() => null);
  if (!stat?.isFile()) throw new AgentBundleMissingError(file);
  const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  if (cached?.key !== key) {
    const bytes = await fs.readFile(file);
    cached = { key, bundle: { bytes, sha256: createHash('sha256').update(bytes).digest('hex') } };
  }
  return cached.bundle;
}

/** The checksum file's line, in `sha256sum`'s format so `sha256sum -c` reads it too. */
export function checksumLine(bundle: AgentBundle): string {
  return `${bundle.sha256}  inferwatch-agent.mjs\n`;
}
