import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { diffMigrationsToSchema } from '../../prisma/schema-engine';

describe('prisma/schema.prisma and prisma/migrations', () => {
  test('agree: applying every migration yields exactly the schema (no diff)', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  });

  test('a model missing from the migrations shows up as a diff', async () => {
    const schema = fs.readFileSync('prisma/schema.prisma', 'utf8');
    const drifted = `${schema}\nmodel Drift {\n  id Int @id\n  @@map("drift")\n}\n`;
    expect(await diffMigrationsToSchema(drifted)).toMatch(/CREATE TABLE "drift"/);
  });
});
