import { ROLES, type Role } from '../protocol/auth';

export { hasRole, lesserRole } from '../protocol/auth';

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);
