'use client';

import { useSyncExternalStore } from 'react';
import { fetchJson } from '../fetch-json';

/** The admin token pasted by the operator: this tab's sessionStorage only, so it leaves with the tab. */
const STORAGE_KEY = 'inferwatch.adminToken';
const listeners = new Set<() => void>();

function read(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function setAdminToken(token: string | null): void {
  const trimmed = token?.trim() ?? '';
  try {
    if (trimmed) window.sessionStorage.setItem(STORAGE_KEY, trimmed);
    else window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode quota): the token then lasts only until the page reloads.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useAdminToken(): string | null {
  return useSyncExternalStore(subscribe, read, () => null);
}

export class AdminTokenMissingError extends Error {
  constructor() {
    super('Paste the admin token first (Settings, or the field at the top of this page).');
    this.name = 'AdminTokenMissingError';
  }
}

/** fetchJson with `Authorization: Bearer <admin token>`: every write, and the reads the admin API guards. */
export function adminFetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const token = read();
  if (!token) return Promise.reject(new AdminTokenMissingError());
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetchJson<T>(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
}

/** A short stand-in for the token in query keys, so a new token refetches without the token living in the cache. */
export function tokenKey(token: string | null): string | null {
  if (token === null) return null;
  let hash = 5381;
  for (let i = 0; i < token.length; i++) hash = ((hash << 5) + hash + token.charCodeAt(i)) | 0;
  return (hash >>> 0).toString(36);
}
