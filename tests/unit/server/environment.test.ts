import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { EnvironmentError, parseServerEnvironment, SERVER_VARIABLES, serverEnvironment } from '../../../lib/server/environment';

const CWD = '/srv/inferwatch';
const parse = (env: Record<string, string>) => parseServerEnvironment(env, CWD);

describe('server environment', () => {
  afterEach(() => vi.unstubAllEnvs());

  test('with nothing set, every variable takes its documented default', () => {
    expect(parse({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'embedded', dataDir: '/srv/inferwatch/.inferwatch/data' },
      databasePools: { poolSize: 16, readPoolSize: 8, ingestPoolSize: 4, readTimeoutMs: 15_000 },
      stateDir: '/srv/inferwatch/.inferwatch',
      localAgent: { enabled: true, intervalS: 10 },
      demo: undefined,
      adminToken: undefined,
      localSignIn: true,
      publicUrl: undefined,
      secretKey: undefined,
      retentionDays: { raw: 7, oneMinute: 35, oneHour: 400 },
      staleAfterMs: 30_000,
      ingestRate: { requestsPerS: 1, requestBurst: 20, reportsPerMin: 1000, reportBurst: 1000 },
      alertTargets: { allowPrivate: false, allowedNetworks: [] },
      fixWindowMs: 3_600_000,
      oidc: undefined,
      trustedProxies: [],
    });
  });

  test('SSO: an issuer with its client and a role mapping; half of it stops the start, the secret never repeated', () => {
    const oidc = {
      INFERWATCH_OIDC_ISSUER: 'https://idp.example/realms/ops',
      INFERWATCH_OIDC_CLIENT_ID: 'inferwatch',
      INFERWATCH_OIDC_CLIENT_SECRET: 'hunter2-secret',
      INFERWATCH_OIDC_ROLES: 'ops-admins=admin, ops=editor,*=viewer',
    };
    expect(parse(oidc).oidc).toEqual({
      issuer: 'https://idp.example/realms/ops',
      clientId: 'inferwatch',
      clientSecret: 'hunter2-secret',
      roleClaim: 'groups',
      roles: [
        { value: 'ops-admins', role: 'admin' },
        { value: 'ops', role: 'editor' },
        { value: '*', role: 'viewer' },
      ],
    });
    expect(parse({ ...oidc, INFERWATCH_OIDC_ISSUER: 'http://127.0.0.1:4000' }).oidc?.issuer).toBe('http://127.0.0.1:4000');
    expect(() => parse({ ...oidc, INFERWATCH_OIDC_ISSUER: 'http://idp.example' })).toThrow('INFERWATCH_OIDC_ISSUER must be an https:// URL');
    expect(() => parse({ ...oidc, INFERWATCH_OIDC_ROLES: 'ops=root' })).toThrow('INFERWATCH_OIDC_ROLES must be claim-value=role pairs');
    expect(() => parse({ ...oidc, INFERWATCH_OIDC_CLIENT_SECRET: '' })).toThrow('INFERWATCH_OIDC_CLIENT_SECRET must be set when INFERWATCH_OIDC_ISSUER is');
    expect(() => parse({ INFERWATCH_OIDC_CLIENT_ID: 'inferwatch' })).toThrow('INFERWATCH_OIDC_ISSUER must be set');
    expect(() => parse({ ...oidc, INFERWATCH_OIDC_ISSUER: 'nope', INFERWATCH_OIDC_CLIENT_SECRET: 'x' })).not.toThrow(/"x"/);
  });

  test('set variables are parsed into their types, and a blank one counts as unset', () => {
    const env = parse({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: ' postgres://u:p@db:5432/iw ',
      INFERWATCH_DB_POOL_SIZE: '4',
      INFERWATCH_DB_READ_POOL_SIZE: '3',
      INFERWATCH_DB_INGEST_POOL_SIZE: '2',
      INFERWATCH_READ_TIMEOUT_MS: '5000',
      INFERWATCH_STATE_DIR: 'state',
      INFERWATCH_LOCAL_AGENT: 'off',
      INFERWATCH_LOCAL_AGENT_INTERVAL: '2.5',
      INFERWATCH_DEMO: 'YES',
      INFERWATCH_ADMIN_TOKEN: 's3cret',
      INFERWATCH_PUBLIC_URL: 'https://iw.example',
      INFERWATCH_SECRET_KEY: 'ab'.repeat(32),
      INFERWATCH_RETENTION_RAW_DAYS: '0.5',
      INFERWATCH_STALE_AFTER_MS: '60000',
      INFERWATCH_INGEST_REPORT_BURST: '5',
      INFERWATCH_RETENTION_1H_DAYS: '',
    });
    expect(env).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      database: { kind: 'server', url: 'postgres://u:p@db:5432/iw' },
      databasePools: { poolSize: 4, readPoolSize: 3, ingestPoolSize: 2, readTimeoutMs: 5000 },
      stateDir: '/srv/inferwatch/state',
      localAgent: { enabled: false, intervalS: 2.5 },
      demo: true,
      adminToken: 's3cret',
      publicUrl: 'https://iw.example',
      retentionDays: { raw: 0.5, oneMinute: 35, oneHour: 400 },
      staleAfterMs: 60_000,
      ingestRate: { requestsPerS: 1, requestBurst: 20, reportsPerMin: 1000, reportBurst: 5 },
    });
    expect(env.secretKey).toEqual(Buffer.alloc(32, 0xab));
  });

  test.each([
    ['PORT', 'abc', 'must be a port number from 0 to 65535'],
    ['PORT', '70000', 'must be a port number from 0 to 65535'],
    ['INFERWATCH_DB_POOL_SIZE', '-1', 'must be a positive whole number of connections'],
    ['INFERWATCH_DB_POOL_SIZE', '2.5', 'must be a positive whole number of connections'],
    ['INFERWATCH_DB_INGEST_POOL_SIZE', '0', 'must be a positive whole number of connections'],
    ['INFERWATCH_READ_TIMEOUT_MS', '1.5', 'must be a positive whole number of milliseconds'],
    ['INFERWATCH_STALE_AFTER_MS', 'NaN', 'must be a positive number of milliseconds'],
    ['INFERWATCH_RETENTION_RAW_DAYS', '0', 'must be a positive number of days'],
    ['INFERWATCH_INGEST_REQUESTS_PER_S', '-3', 'must be a positive number of requests per second'],
    ['INFERWATCH_LOCAL_AGENT_INTERVAL', '0', 'must be a number of seconds from 0.1 to 3600'],
    ['INFERWATCH_DEMO', 'maybe', 'must be 1, true, on or yes, or 0, false, off or no'],
    ['INFERWATCH_LOCAL_AGENT', 'disabled', 'must be 1, true, on or yes, or 0, false, off or no'],
    ['DATABASE_URL', 'mysql://db/iw', 'must be a postgres:// or postgresql:// URL'],
    ['INFERWATCH_PUBLIC_URL', 'iw.example', 'must be an http:// or https:// URL'],
    ['INFERWATCH_SECRET_KEY', 'short', 'must be 32 bytes as hex (64 digits) or base64'],
  ])('%s=%s is refused: it %s', (name, value, must) => {
    expect(() => parse({ [name]: value })).toThrow(EnvironmentError);
    expect(() => parse({ [name]: value })).toThrow(`${name} ${must}`);
  });

  test('every bad variable is named at once, with the value it had', () => {
    expect(() => parse({ PORT: 'x', INFERWATCH_DEMO: 'maybe' })).toThrow(
      'invalid environment:\n  PORT must be a port number from 0 to 65535, not "x"\n  INFERWATCH_DEMO must be 1, true, on or yes, or 0, false, off or no, not "maybe"',
    );
  });

  test('a bad secret or database URL is named without repeating its value', () => {
    expect(() => parse({ INFERWATCH_SECRET_KEY: 'almost-a-key' })).toThrow(/INFERWATCH_SECRET_KEY must be 32 bytes as hex \(64 digits\) or base64$/);
    expect(() => parse({ DATABASE_URL: 'mysql://root:hunter2@db/iw' })).not.toThrow(/hunter2/);
  });

  test("the process's environment is parsed again when a variable changes", () => {
    vi.stubEnv('INFERWATCH_STALE_AFTER_MS', '1000');
    const first = serverEnvironment();
    expect(first.staleAfterMs).toBe(1000);
    expect(serverEnvironment()).toBe(first);
    vi.stubEnv('INFERWATCH_STALE_AFTER_MS', '2000');
    expect(serverEnvironment().staleAfterMs).toBe(2000);
    vi.stubEnv('INFERWATCH_STALE_AFTER_MS', 'soon');
    expect(() => serverEnvironment()).toThrow('INFERWATCH_STALE_AFTER_MS must be a positive number of milliseconds');
  });

  test("docs/operations.md's Configuration table lists exactly the variables the server reads", () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../../docs/operations.md'), 'utf8');
    const table = readme.split('## Configuration')[1]!.split('\n## ')[0]!.split('\n').filter((line) => line.startsWith('| `'));
    const documented = table.flatMap((row) => {
      const names = [...row.split('|')[1]!.matchAll(/`([A-Z_0-9]+)`/g)].map((m) => m[1]!);
      const first = names[0]!;
      // `INFERWATCH_RETENTION_RAW_DAYS` / `_1M_DAYS`: a suffix replaces the first name's tail from the same word on.
      return names.map((name) => {
        if (!name.startsWith('_')) return name;
        const words = first.split('_');
        for (let keep = words.length; keep > 0; keep--) {
          const candidate = words.slice(0, keep).join('_') + name;
          if ((SERVER_VARIABLES as string[]).includes(candidate)) return candidate;
        }
        return `${first}${name}`;
      });
    });
    expect([...documented].sort()).toEqual([...SERVER_VARIABLES].sort());
  });
});
