import proxyaddr from 'proxy-addr';
import path from 'node:path';
import { z } from 'zod';
import { parseCidrList, type Cidr } from '../alerts/channels/networks';
import { PUBLIC_TARGETS_ONLY } from '../alerts/channels/target-policy';
import { parseSecretKey } from '../alerts/channels/secret-key';
import { DEFAULT_DATABASE_POOLS, type DatabasePools } from '../db/pools';
import type { DatabaseTarget } from '../db/target';
import { DEFAULT_STALE_AFTER_MS } from '../fleet/staleness';
import { isLoopbackHost } from '../protocol/loopback';
import { DEFAULT_INGEST_RATE, type RateLimits } from '../ingest/rate-limit';
import type { OidcRoleMapping, OidcSettings } from '../auth/oidc';
import { ROLES, type Role } from '../protocol/roles';
import { DEFAULT_RETENTION_DAYS, type RetentionDays } from '../series/retention-config';
import { processSlot } from '../process-singleton';

/** Everything the server takes from its environment, checked once; README.md's Configuration table lists the same. */
export interface ServerEnvironment {
  port: number;
  host: string;
  database: DatabaseTarget;
  /** A PostgreSQL server's pools and its read statements' timeout. */
  databasePools: DatabasePools;
  stateDir: string;
  localAgent: { enabled: boolean; intervalS: number };
  /** undefined: on with the embedded database only. */
  demo: boolean | undefined;
  /** A bootstrap admin bearer token for scripts until API tokens exist; undefined: none. */
  adminToken: string | undefined;
  /** Whether a server listening on loopback only signs its visitors in as the local admin. */
  localSignIn: boolean;
  /** undefined: the address the server listens on. */
  publicUrl: string | undefined;
  /** undefined: the key file in stateDir. */
  secretKey: Buffer | undefined;
  retentionDays: RetentionDays;
  staleAfterMs: number;
  /** The windows before a fix and after its resolution that lib/findings/effects compares. */
  fixWindowMs: number;
  ingestRate: RateLimits;
  /** Where alert channels may send beyond public addresses (lib/alerts/channels/target-policy.ts). */
  alertTargets: { allowPrivate: boolean; allowedNetworks: Cidr[] };
  /** Single sign-on through an OpenID provider; undefined: INFERWATCH_OIDC_ISSUER unset. */
  oidc: OidcSettings | undefined;
  /** Proxies whose X-Forwarded-For names the client (lib/http/client-address.ts); empty: the socket's peer is. */
  trustedProxies: string[];
}

export class EnvironmentError extends Error {}

function number(must: string, ok: (n: number) => boolean) {
  return z.string().transform((text, ctx) => {
    const n = Number(text);
    if (!Number.isFinite(n) || !ok(n)) ctx.addIssue({ code: 'custom', message: must });
    return n;
  });
}
const positiveNumber = (unit: string) => number(`must be a positive number of ${unit}`, (n) => n > 0);
const positiveInteger = (unit: string) => number(`must be a positive whole number of ${unit}`, (n) => Number.isInteger(n) && n > 0);

const FLAG_WORDS: Record<string, boolean> = { 1: true, true: true, on: true, yes: true, 0: false, false: false, off: false, no: false };
const flag = z.string().transform((text, ctx) => {
  const value = FLAG_WORDS[text.toLowerCase()];
  if (value === undefined) ctx.addIssue({ code: 'custom', message: 'must be 1, true, on or yes, or 0, false, off or no' });
  return value ?? false;
});

const httpUrl = z.string().refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), 'must be an http:// or https:// URL');

// https, or http to a provider on this machine (a development or test provider): the client secret and the codes
// travel over this connection.
const oidcIssuer = httpUrl.refine((text) => {
  const url = new URL(text);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}, 'must be an https:// URL (http:// only for a provider on loopback)');

const oidcRoles = z.string().transform((text, ctx) => {
  const mappings: OidcRoleMapping[] = [];
  for (const entry of text.split(',').map((part) => part.trim()).filter(Boolean)) {
    const eq = entry.lastIndexOf('=');
    const value = entry.slice(0, eq).trim();
    const role = entry.slice(eq + 1).trim();
    if (eq <= 0 || !value || !(ROLES as readonly string[]).includes(role)) {
      ctx.addIssue({ code: 'custom', message: `must be claim-value=role pairs separated by commas, each role one of ${ROLES.join(', ')} (\`*=viewer\` for everyone else)` });
      return z.NEVER;
    }
    mappings.push({ value, role: role as Role });
  }
  if (mappings.length === 0) ctx.addIssue({ code: 'custom', message: 'must map at least one claim value to a role' });
  return mappings;
});

const VARIABLES = {
  PORT: number('must be a port number from 0 to 65535', (n) => Number.isInteger(n) && n >= 0 && n <= 65535),
  HOST: z.string(),
  DATABASE_URL: z
    .string()
    .refine((text) => /^postgres(ql)?:\/\//.test(text) && URL.canParse(text), 'must be a postgres:// or postgresql:// URL (unset or empty: the embedded database)'),
  INFERWATCH_DATA_DIR: z.string(),
  INFERWATCH_STATE_DIR: z.string(),
  INFERWATCH_DB_POOL_SIZE: positiveInteger('connections'),
  INFERWATCH_DB_READ_POOL_SIZE: positiveInteger('connections'),
  INFERWATCH_DB_INGEST_POOL_SIZE: positiveInteger('connections'),
  INFERWATCH_READ_TIMEOUT_MS: positiveInteger('milliseconds'),
  INFERWATCH_LOCAL_AGENT: flag,
  INFERWATCH_LOCAL_AGENT_INTERVAL: number('must be a number of seconds from 0.1 to 3600', (n) => n >= 0.1 && n <= 3600),
  INFERWATCH_DEMO: flag,
  INFERWATCH_ADMIN_TOKEN: z.string(),
  INFERWATCH_LOCAL_SIGN_IN: flag,
  INFERWATCH_PUBLIC_URL: httpUrl,
  INFERWATCH_SECRET_KEY: z.string().transform((text, ctx) => {
    try {
      return parseSecretKey(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be 32 bytes as hex (64 digits) or base64' });
      return z.NEVER;
    }
  }),
  INFERWATCH_RETENTION_RAW_DAYS: positiveNumber('days'),
  INFERWATCH_RETENTION_1M_DAYS: positiveNumber('days'),
  INFERWATCH_RETENTION_1H_DAYS: positiveNumber('days'),
  INFERWATCH_STALE_AFTER_MS: positiveNumber('milliseconds'),
  INFERWATCH_FIX_WINDOW_S: number('must be a whole number of seconds, at least 10', (n) => Number.isInteger(n) && n >= 10),
  INFERWATCH_INGEST_REQUESTS_PER_S: positiveNumber('requests per second'),
  INFERWATCH_INGEST_REQUEST_BURST: positiveNumber('requests'),
  INFERWATCH_INGEST_REPORTS_PER_MIN: positiveNumber('reports per minute'),
  INFERWATCH_INGEST_REPORT_BURST: positiveNumber('reports'),
  INFERWATCH_OIDC_ISSUER: oidcIssuer,
  INFERWATCH_OIDC_CLIENT_ID: z.string(),
  INFERWATCH_OIDC_CLIENT_SECRET: z.string(),
  INFERWATCH_OIDC_ROLE_CLAIM: z.string(),
  INFERWATCH_OIDC_ROLES: oidcRoles,
  INFERWATCH_ALERT_ALLOW_PRIVATE: flag,
  INFERWATCH_TRUSTED_PROXIES: z.string().transform((text, ctx) => {
    const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
    try {
      proxyaddr.compile(entries);
      return entries;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated addresses or ranges of your proxies, such as 10.0.0.5,10.1.0.0/16 (or loopback, uniquelocal)' });
      return z.NEVER;
    }
  }),
  INFERWATCH_ALERT_ALLOWED_NETWORKS: z.string().transform((text, ctx) => {
    try {
      return parseCidrList(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated address ranges such as 10.0.0.0/8,fd00::/8' });
      return z.NEVER;
    }
  }),
};
export const SERVER_VARIABLES = Object.keys(VARIABLES) as (keyof typeof VARIABLES)[];
// Their values may hold a password or a key: an error names them without repeating the value into a log.
const SECRET_VARIABLES = new Set<string>(['DATABASE_URL', 'INFERWATCH_ADMIN_TOKEN', 'INFERWATCH_SECRET_KEY', 'INFERWATCH_OIDC_CLIENT_SECRET']);

// An empty variable counts as unset: `FOO= npm start` and env files with blank values mean "the default".
const unsetIfBlank = (value: unknown) => (typeof value === 'string' ? value.trim() || undefined : value);
const environmentSchema = z.object(
  Object.fromEntries(Object.entries(VARIABLES).map(([name, schema]) => [name, z.preprocess(unsetIfBlank, schema.optional())])) as {
    [K in keyof typeof VARIABLES]: z.ZodPipe<z.ZodTransform, z.ZodOptional<(typeof VARIABLES)[K]>>;
  },
);

/** The environment's variables, checked: an EnvironmentError names every bad one and what it must be. */
export function parseServerEnvironment(env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): ServerEnvironment {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return SECRET_VARIABLES.has(name) ? `  ${name} ${issue.message}` : `  ${name} ${issue.message}, not "${env[name]}"`;
    });
    throw new EnvironmentError(`invalid environment:\n${lines.join('\n')}`);
  }
  const v = parsed.data;
  const oidc = oidcSettings(v);
  const stateDir = path.resolve(cwd, v.INFERWATCH_STATE_DIR ?? '.inferwatch');
  return {
    port: v.PORT ?? 3000,
    host: v.HOST ?? '127.0.0.1',
    database: v.DATABASE_URL
      ? { kind: 'server', url: v.DATABASE_URL }
      : { kind: 'embedded', dataDir: path.resolve(cwd, v.INFERWATCH_DATA_DIR ?? path.join('.inferwatch', 'data')) },
    databasePools: {
      poolSize: v.INFERWATCH_DB_POOL_SIZE ?? DEFAULT_DATABASE_POOLS.poolSize,
      readPoolSize: v.INFERWATCH_DB_READ_POOL_SIZE ?? DEFAULT_DATABASE_POOLS.readPoolSize,
      ingestPoolSize: v.INFERWATCH_DB_INGEST_POOL_SIZE ?? DEFAULT_DATABASE_POOLS.ingestPoolSize,
      readTimeoutMs: v.INFERWATCH_READ_TIMEOUT_MS ?? DEFAULT_DATABASE_POOLS.readTimeoutMs,
    },
    stateDir,
    localAgent: { enabled: v.INFERWATCH_LOCAL_AGENT ?? true, intervalS: v.INFERWATCH_LOCAL_AGENT_INTERVAL ?? 10 },
    demo: v.INFERWATCH_DEMO,
    adminToken: v.INFERWATCH_ADMIN_TOKEN,
    localSignIn: v.INFERWATCH_LOCAL_SIGN_IN ?? true,
    publicUrl: v.INFERWATCH_PUBLIC_URL,
    secretKey: v.INFERWATCH_SECRET_KEY,
    retentionDays: {
      raw: v.INFERWATCH_RETENTION_RAW_DAYS ?? DEFAULT_RETENTION_DAYS.raw,
      oneMinute: v.INFERWATCH_RETENTION_1M_DAYS ?? DEFAULT_RETENTION_DAYS.oneMinute,
      oneHour: v.INFERWATCH_RETENTION_1H_DAYS ?? DEFAULT_RETENTION_DAYS.oneHour,
    },
    staleAfterMs: v.INFERWATCH_STALE_AFTER_MS ?? DEFAULT_STALE_AFTER_MS,
    fixWindowMs: (v.INFERWATCH_FIX_WINDOW_S ?? 3600) * 1000,
    ingestRate: {
      requestsPerS: v.INFERWATCH_INGEST_REQUESTS_PER_S ?? DEFAULT_INGEST_RATE.requestsPerS,
      requestBurst: v.INFERWATCH_INGEST_REQUEST_BURST ?? DEFAULT_INGEST_RATE.requestBurst,
      reportsPerMin: v.INFERWATCH_INGEST_REPORTS_PER_MIN ?? DEFAULT_INGEST_RATE.reportsPerMin,
      reportBurst: v.INFERWATCH_INGEST_REPORT_BURST ?? DEFAULT_INGEST_RATE.reportBurst,
    },
    alertTargets: {
      allowPrivate: v.INFERWATCH_ALERT_ALLOW_PRIVATE ?? PUBLIC_TARGETS_ONLY.allowPrivate,
      allowedNetworks: v.INFERWATCH_ALERT_ALLOWED_NETWORKS ?? [...PUBLIC_TARGETS_ONLY.allowedNetworks],
    },
    oidc,
    trustedProxies: v.INFERWATCH_TRUSTED_PROXIES ?? [],
  };
}

/** SSO is on with an issuer, and then needs its client and a role mapping too: a half-configured one stops the start. */
function oidcSettings(v: z.infer<typeof environmentSchema>): OidcSettings | undefined {
  const issuer = v.INFERWATCH_OIDC_ISSUER;
  const missing = (['INFERWATCH_OIDC_CLIENT_ID', 'INFERWATCH_OIDC_CLIENT_SECRET', 'INFERWATCH_OIDC_ROLES'] as const).filter((name) => v[name] === undefined);
  if (issuer === undefined) {
    if (missing.length < 3) throw new EnvironmentError('invalid environment:\n  INFERWATCH_OIDC_ISSUER must be set when the other INFERWATCH_OIDC_ variables are');
    return undefined;
  }
  if (missing.length > 0) throw new EnvironmentError(`invalid environment:\n${missing.map((name) => `  ${name} must be set when INFERWATCH_OIDC_ISSUER is`).join('\n')}`);
  return {
    issuer,
    clientId: v.INFERWATCH_OIDC_CLIENT_ID!,
    clientSecret: v.INFERWATCH_OIDC_CLIENT_SECRET!,
    roleClaim: v.INFERWATCH_OIDC_ROLE_CLAIM ?? 'groups',
    roles: v.INFERWATCH_OIDC_ROLES!,
  };
}

// Parsed again only when a variable changed (tests point DATABASE_URL at their own database between cases).
const parsedEnvironment = processSlot<{ key: string; parsed: ServerEnvironment }>('environment');

/** This process's environment, parsed; server.ts reads it first thing, so a bad variable stops the start. */
export function serverEnvironment(): ServerEnvironment {
  const key = JSON.stringify([process.cwd(), ...SERVER_VARIABLES.map((name) => process.env[name])]);
  let held = parsedEnvironment.get();
  if (held?.key !== key) {
    held = { key, parsed: parseServerEnvironment(process.env) };
    parsedEnvironment.set(held);
  }
  return held.parsed;
}

/** For entry points: a bad variable prints what is wrong and exits 2, without a stack trace. */
export function serverEnvironmentOrExit(): ServerEnvironment {
  try {
    return serverEnvironment();
  } catch (err) {
    if (!(err instanceof EnvironmentError)) throw err;
    console.error(`inferwatch: ${err.message}\n(README.md, Configuration, lists every variable)`);
    process.exit(2);
  }
}
