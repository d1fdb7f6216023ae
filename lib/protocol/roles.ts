// Kept apart from ./auth (and zod): the browser's role checks load on every page.

/** What a signed-in principal may do; each role includes the ones before it (docs/security in SECURITY.md). */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** Whether `role` includes `needed`: what the server enforces and the browser hides controls by. */
export const hasRole = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/** The lesser of two roles: what an API token acts with when its user's role has since been lowered. */
export const lesserRole = (a: Role, b: Role): Role => (RANK[a] <= RANK[b] ? a : b);
