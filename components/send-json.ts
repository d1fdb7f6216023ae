import { fetchJson } from './fetch-json';

/** fetchJson for a write: the body as JSON. The session cookie goes along (same origin); the server checks the role. */
export function sendJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = init.body !== undefined ? { 'Content-Type': 'application/json' } : {};
  return fetchJson<T>(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
}
