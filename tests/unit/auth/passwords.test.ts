import { describe, expect, test } from 'vitest';
import { hashPassword, verifyPassword } from '@/lib/auth/passwords';
import { withArticle } from '@/lib/protocol/article';
import { hasRole, lesserRole } from '@/lib/protocol/roles';

describe('passwords', () => {
  test('scrypt with its parameters and a fresh salt in the stored string; only the same password verifies', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hashPassword('correct horse battery')).not.toBe(stored);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  test('a stored value of another scheme or cut short never verifies', async () => {
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$32768$8$1$')).toBe(false);
  });
});

describe('roles', () => {
  test('each role includes the ones before it, and a token acts with the lesser of its role and its user’s', () => {
    expect(hasRole('admin', 'editor')).toBe(true);
    expect(hasRole('editor', 'viewer')).toBe(true);
    expect(hasRole('viewer', 'editor')).toBe(false);
    expect(hasRole('editor', 'admin')).toBe(false);
    expect(lesserRole('admin', 'viewer')).toBe('viewer');
    expect(lesserRole('editor', 'admin')).toBe('editor');
  });

  test('a role or channel kind after an article reads as English: a viewer, an editor, an alertmanager', () => {
    expect(['viewer', 'editor', 'admin', 'webhook', 'alertmanager'].map(withArticle)).toEqual(['a viewer', 'an editor', 'an admin', 'a webhook', 'an alertmanager']);
  });
});
