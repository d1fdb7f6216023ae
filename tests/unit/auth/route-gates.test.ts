import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const APP = path.resolve(import.meta.dirname, '../../../app');

/** Routes that answer without a role, and what guards each instead. */
const OPEN: Record<string, string> = {
  'api/health': 'liveness for load balancers: version and database status only',
  'api/openapi.json': 'the API description, generated from the schemas: it holds no data',
  'api/v1/enroll': 'an enrollment key',
  'api/v1/ingest': 'a host token',
  'api/v1/auth/login': 'a password, rate-limited',
  'api/v1/auth/logout': 'ends the session its cookie names, if any',
  'api/v1/auth/session': 'says who the request acts as, or nobody',
  'api/v1/auth/oidc/start': 'only redirects to the OpenID provider; nothing is read or written but the sealed flow cookie',
  'install.sh': 'a public artefact with no secret in it: the install script (the key reaches it on stdin)',
  'agent/inferwatch-agent.mjs': 'a public artefact with no secret in it: the agent bundle install.sh verifies',
  'agent/inferwatch-agent.mjs.sha256': 'a public artefact with no secret in it: the bundle checksum',
  'api/v1/auth/oidc/callback': 'the OpenID provider: state against the sealed flow cookie, PKCE, the ID token checked, a mapped role',
};

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? routeFiles(full) : entry.name === 'route.ts' ? [full] : [];
  });
}

test('every route handler asks for a role, but the few that are guarded otherwise', () => {
  const ungated: string[] = [];
  let handlers = 0;
  for (const file of routeFiles(APP)) {
    const route = path.relative(APP, path.dirname(file));
    const source = fs.readFileSync(file, 'utf8');
    // route({ role: 'viewer', … }) declares its gate (lib/http/route.ts); a hand-written handler calls requireRole.
    const starts = [...source.matchAll(/export (?:async function|const) (GET|POST|PUT|PATCH|DELETE)\b/g)];
    starts.forEach((match, i) => {
      handlers++;
      const body = source.slice(match.index, starts[i + 1]?.index ?? source.length);
      const gated = /route\(\{\s*role: '[a-z]+'/.test(body) || body.includes('requireRole(request,');
      if (!(route in OPEN) && !gated) ungated.push(`${match[1]} /${route}`);
    });
  }
  expect(handlers).toBeGreaterThan(40);
  expect(ungated).toEqual([]);
});

test('every open route exists', () => {
  for (const route of Object.keys(OPEN)) expect(fs.existsSync(path.join(APP, route, 'route.ts')), route).toBe(true);
});
