import { describe, expect, test } from 'vitest';
import { localPath, mapRole, type OidcRoleMapping } from '../../../lib/auth/oidc';

const roles: OidcRoleMapping[] = [
  { value: 'ops', role: 'editor' },
  { value: 'ops-admins', role: 'admin' },
  { value: 'interns', role: 'viewer' },
];

describe('the role claim → role mapping', () => {
  test('the highest role any value maps to, whatever the order of the mapping', () => {
    expect(mapRole(['interns', 'ops-admins', 'ops'], roles)).toBe('admin');
    expect(mapRole(['ops', 'sales'], roles)).toBe('editor');
    expect(mapRole('interns', roles)).toBe('viewer');
  });

  test('no match is no role, unless `*` gives one; a claim that is not strings matches nothing', () => {
    expect(mapRole(['sales'], roles)).toBeNull();
    expect(mapRole(undefined, roles)).toBeNull();
    expect(mapRole([42, { ops: true }], roles)).toBeNull();
    expect(mapRole(['sales'], [...roles, { value: '*', role: 'viewer' }])).toBe('viewer');
    expect(mapRole(['ops'], [{ value: '*', role: 'viewer' }, ...roles])).toBe('editor');
  });
});

test('after signing in the browser goes to a path on this server only', () => {
  expect(localPath('/hosts/7?range=1h')).toBe('/hosts/7?range=1h');
  for (const bad of [null, '', 'https://evil.example', '//evil.example', '/\\evil.example']) expect(localPath(bad)).toBe('/');
});
