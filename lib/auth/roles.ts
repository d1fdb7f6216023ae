import { ROLES, type Role } from '../protocol/auth';

export { ROLES, type Role };

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

export const hasRole = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/** The lesser of two roles: what an API token acts with when its user's role has since been lowered. */
export const lesserRole = (a: Role, b: Role): Role => (RANK[a] <= RANK[b] ? a : b);
