import type { ErrorEnvelope } from '@/lib/protocol/errors';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A 429's or 503's Retry-After, in seconds. */
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The one fetch wrapper: JSON in, JSON out, the error envelope turned into an ApiError. */
export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init?.headers } });
  if (response.status === 204) return undefined as T;
  if (response.ok) return (await response.json()) as T;
  const envelope = (await response.json().catch(() => null)) as ErrorEnvelope | null;
  const retryAfterS = Number(response.headers.get('retry-after'));
  throw new ApiError(
    response.status,
    envelope?.error.code ?? 'http_error',
    envelope?.error.message ?? `${response.status} ${response.statusText}`,
    Number.isFinite(retryAfterS) && retryAfterS > 0 ? retryAfterS : null,
  );
}
