import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { enrollResponseSchema, type EnrollRequest } from '../../lib/protocol';
import { writeFileAtomic } from './atomic-file';
import { httpPost, type HttpAnswer } from './http-post';

export const TOKEN_FILE = 'host-token.json';

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

export async function readHostToken(stateDir: string, server: string): Promise<HostToken | null> {
  try {
    const token = hostTokenSchema.parse(JSON.parse(readFileSync(path.join(stateDir, TOKEN_FILE), 'utf8')));
    return token.server === server ? token : null;
  } catch {
    return null;
  }
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
    const hint = status === 401 || status === 403 ? ' — the enrollment key was rejected' : '';
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
