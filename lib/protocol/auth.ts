import { z } from 'zod';
import { ROLES, type Role } from './roles';

const email = z.string().trim().toLowerCase().email().max(254);
const password = z.string().min(12, 'must be at least 12 characters').max(1024);

/** POST /api/v1/auth/login */
export const loginInputSchema = z.object({ email, password: z.string().min(1).max(1024) });

/**
 * POST /api/v1/admin/users: a password, one the server generates (`generatePassword`, answered once), or none for a
 * user who signs in through the OpenID provider.
 */
export const userInputSchema = z
  .object({
    email,
    name: z.string().trim().max(200).default(''),
    role: z.enum(ROLES),
    password: password.optional(),
    generatePassword: z.boolean().optional(),
  })
  .refine((u) => !(u.password !== undefined && u.generatePassword), { path: ['generatePassword'], message: 'give a password or ask for one, not both' });
export type UserInput = z.infer<typeof userInputSchema>;

/** PATCH /api/v1/admin/users/:id */
export const userPatchSchema = z
  .object({ name: z.string().trim().max(200), role: z.enum(ROLES), disabled: z.boolean(), password })
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'give at least one of name, role, disabled, password');
export type UserPatch = z.infer<typeof userPatchSchema>;

/** POST /api/v1/auth/password: the new password as user creation takes it. */
export const passwordChangeInputSchema = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: password });
export type PasswordChangeInput = z.infer<typeof passwordChangeInputSchema>;

/** POST /api/v1/auth/tokens: acts with at most the creating user's role. */
export const apiTokenInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  role: z.enum(ROLES).optional(),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type ApiTokenInput = z.infer<typeof apiTokenInputSchema>;

export const idParamSchema = z.object({ id: z.coerce.number().int().positive() });

/** GET /api/v1/admin/audit */
export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  before: z.coerce.number().int().positive().optional(),
});

export type PrincipalKind = 'user' | 'token' | 'bootstrap' | 'local';

export interface PrincipalView {
  kind: PrincipalKind;
  name: string;
  email: string | null;
  role: Role;
}

/** GET /api/v1/auth/session: who this request acts as, or null; whether the server signs in loopback visitors; whether SSO is on. */
export interface SessionInfo {
  principal: PrincipalView | null;
  localSignIn: boolean;
  /** An OpenID provider is configured: the sign-in page offers GET /api/v1/auth/oidc/start. */
  sso: boolean;
}

export interface UserView {
  id: number;
  email: string;
  name: string;
  role: Role;
  password: boolean;
  sso: boolean;
  createdAt: string;
  disabledAt: string | null;
}

/** The answer of POST /api/v1/admin/users: with `generatedPassword` (shown once) when the server made one. */
export interface CreatedUser extends UserView {
  generatedPassword?: string;
}

export interface ApiTokenView {
  id: number;
  name: string;
  tokenPrefix: string;
  role: Role;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiToken extends ApiTokenView {
  /** The token itself: shown once; only its hash is stored. */
  token: string;
}

/** Who an audit entry names: a principal, the server itself, nobody signed in (a refused sign-in), or an agent with its enrollment key. */
export type AuditActorKind = PrincipalKind | 'system' | 'anonymous' | 'agent';

export interface AuditEntryView {
  id: number;
  at: string;
  actorKind: AuditActorKind;
  actorName: string;
  action: string;
  target: string;
  ip: string;
  detail: Record<string, unknown>;
}
