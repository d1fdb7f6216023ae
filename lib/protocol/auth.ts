import { z } from 'zod';
import { isoTimeSchema } from './response-fields';
import { ROLES } from './roles';

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

export const PRINCIPAL_KINDS = ['user', 'token', 'bootstrap', 'local'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export const principalViewSchema = z.strictObject({ kind: z.enum(PRINCIPAL_KINDS), name: z.string(), email: z.string().nullable(), role: z.enum(ROLES) });
export type PrincipalView = z.infer<typeof principalViewSchema>;

/** GET /api/v1/auth/session: who this request acts as, or null; whether the server signs in loopback visitors; whether SSO is on. */
export const sessionInfoSchema = z.strictObject({
  principal: principalViewSchema.nullable(),
  localSignIn: z.boolean(),
  /** An OpenID provider is configured: the sign-in page offers GET /api/v1/auth/oidc/start. */
  sso: z.boolean(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const userSchema = z.strictObject({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  password: z.boolean(),
  sso: z.boolean(),
  createdAt: isoTimeSchema,
  disabledAt: isoTimeSchema.nullable(),
});
export type UserView = z.infer<typeof userSchema>;

/** The answer of POST /api/v1/admin/users: with `generatedPassword` (shown once) when the server made one. */
export const createdUserSchema = userSchema.extend({
  generatedPassword: z.string().optional().meta({ description: 'The password the server generated: in this answer only.' }),
});
export type CreatedUser = z.infer<typeof createdUserSchema>;

export const apiTokenSchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  tokenPrefix: z.string(),
  role: z.enum(ROLES),
  createdAt: isoTimeSchema,
  lastUsedAt: isoTimeSchema.nullable(),
  expiresAt: isoTimeSchema.nullable(),
  revokedAt: isoTimeSchema.nullable(),
});
export type ApiTokenView = z.infer<typeof apiTokenSchema>;

export const createdApiTokenSchema = apiTokenSchema.extend({
  /** The token itself: shown once; only its hash is stored. */
  token: z.string(),
});
export type CreatedApiToken = z.infer<typeof createdApiTokenSchema>;

/** Who an audit entry names: a principal, the server itself, nobody signed in (a refused sign-in), or an agent with its enrollment key. */
export const AUDIT_ACTOR_KINDS = [...PRINCIPAL_KINDS, 'system', 'anonymous', 'agent'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

export const auditEntrySchema = z.strictObject({
  id: z.number().int(),
  at: isoTimeSchema,
  actorKind: z.enum(AUDIT_ACTOR_KINDS),
  actorName: z.string(),
  action: z.string(),
  target: z.string(),
  ip: z.string(),
  detail: z.record(z.string(), z.unknown()),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
