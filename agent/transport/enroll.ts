import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { enrollResponseSchema, type EnrollRequest } from '../../lib/protocol';
import { writeFileAtomic } from './atomic-file';
import { httpPost, type HttpAnswer } from './http-post';

export const TOKEN_FILE = 'host-token.json';
/** The id a host without /etc/machine-id enrolls with, kept beside its token. */
export const STATE_MACHINE_ID_FILE = 'machine-id';

const hostTokenSchema = z.object({ hostId: z.number().int().positive(), token: z.string().min(1), server: z.string() });
export type HostToken = z.infer<typeof hostTokenSchema>;

export class EnrollError extends Error {
  constructor(
    message: string,
    /** False for answers that retrying cannot fix (a rejected key, a malformed answer). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function readHostToken(stateDir: string, server: string): HostToken | null {
  try {
    const token = hostTokenSchema.parse(JSON.parse(readFileSync(path.join(stateDir, TOKEN_FILE), 'utf8')));
    return token.server === server ? token : null;
  } catch {
    return null;
  }
}

/** The token file's token when it was issued by the same origin as `server` under another spelling of its URL. */
export function readTokenForOrigin(stateDir: string, server: string): HostToken | null {
  try {
    const token = hostTokenSchema.parse(JSON.parse(readFileSync(path.join(stateDir, TOKEN_FILE), 'utf8')));
    return new URL(token.server).origin === new URL(server).origin ? token : null;
  } catch {
    return null;
  }
}

/**
 * An id for a host without /etc/machine-id (most containers): 128 random bits, made once and kept in the state dir
 * (0600). A machine-id the server stored is what proves a re-enrollment, so an agent that keeps its state keeps it.
 */
export async function readStateMachineId(stateDir: string): Promise<string> {
  const file = path.join(stateDir, STATE_MACHINE_ID_FILE);
  const existing = await readMachineId(file);
  if (existing && /^[0-9a-f]{32}$/.test(existing)) return existing;
  const id = randomBytes(16).toString('hex');
  await writeFileAtomic(file, `${id}\n`, 0o600);
  return id;
}

export async function readMachineId(etcMachineIdPath = '/etc/machine-id'): Promise<string | null> {
  try {
    const id = (await readFile(etcMachineIdPath, 'utf8')).trim();
    return id === '' ? null : id.slice(0, 128);
  } catch {
    return null;
  }
}

export interface EnrollInput {
  server: string;
  stateDir: string;
  enrollKey: string;
  request: EnrollRequest;
  timeoutMs?: number;
}

/** Trades the enrollment key for a host token, stores it (0600) and returns it with the server's nextSeq. */
export async function enroll(input: EnrollInput): Promise<HostToken & { nextSeq: number }> {
  let response: HttpAnswer;
  try {
    response = await httpPost({
      url: `${input.server}/api/v1/enroll`,
      headers: { authorization: `Bearer ${input.enrollKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input.request),
      timeoutMs: input.timeoutMs ?? 15_000,
    });
  } catch (err) {
    throw new EnrollError(`enrollment request failed: ${(err as Error).message}`, true);
  }
  const { status, text } = response;
  if (status < 200 || status > 299) {
    const retryable = status >= 500 || status === 429;
    // 401/403 `unauthorized`/`forbidden` are about the key; a refused host (revoked, not proven) says why itself.
    const keyRefused = (status === 401 || status === 403) && ['unauthorized', 'forbidden', undefined].includes(errorCodeOf(text));
    const hint = keyRefused ? ' — the enrollment key was rejected' : '';
    throw new EnrollError(`enrollment failed: HTTP ${status}${hint}: ${errorMessageOf(text)}`, retryable);
  }
  let parsed: z.infer<typeof enrollResponseSchema>;
  try {
    parsed = enrollResponseSchema.parse(JSON.parse(text));
  } catch {
    throw new EnrollError('enrollment failed: the server answered with an unexpected body', false);
  }
  const token: HostToken = { hostId: parsed.hostId, token: parsed.token, server: input.server };
  await writeFileAtomic(path.join(input.stateDir, TOKEN_FILE), JSON.stringify(token), 0o600);
  return { ...token, nextSeq: parsed.nextSeq };
}

/** The code of the server's error envelope `{ error: { code } }`, when the body is one. */
export function errorCodeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The message of the server's error envelope `{ error: { message } }`, or the start of the body. */
export function errorMessageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON
  }
  return body.slice(0, 200) || '(empty body)';
}
