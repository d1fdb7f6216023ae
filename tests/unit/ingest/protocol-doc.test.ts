import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { reportSchema } from '../../../lib/protocol';

test('the example report in docs/protocol.md is a valid v1 report', () => {
  const doc = fs.readFileSync(path.join(import.meta.dirname, '../../../docs/protocol.md'), 'utf8');
  const example = /## Example report[\s\S]*?```json\n([\s\S]*?)\n```/.exec(doc)?.[1];
  expect(example).toBeDefined();
  const report = reportSchema.parse(JSON.parse(example!));
  expect(report.v).toBe(1);
});
