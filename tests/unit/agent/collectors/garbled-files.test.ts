import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TREE_PAIRS, collectSections, copyFixtures, pairUnder, refusedSections, regularFiles, unstorable, type TreePair } from './section-runner';

// Property (issue #14): whatever one file a collector reads holds — garbled, truncated, binary, gone — every
// section the collectors produce is one the protocol's schemas and the server's ingest accept.
// On failure fast-check prints the seed and path; pass them to fc.assert to replay the case.

const ODD_TOKENS = [
  'x', '-1', '-0', '1.5', '1e400', 'NaN', 'Infinity', '0x10', '', ' ', '\0', '\n', '99999999999999999999',
  '9'.repeat(400), '18446744073709551616', '4294967295', '2147483648', '32768', 'a'.repeat(2000), '😀'.repeat(300),
  '[', ']', ':', '/', '..', '=', 'max', '(', ')',
];

type Garbling =
  | { kind: 'delete' }
  | { kind: 'empty' }
  | { kind: 'truncate'; at: number }
  | { kind: 'token'; index: number; token: string }
  | { kind: 'number'; index: number; token: string }
  | { kind: 'line'; index: number; text: string }
  | { kind: 'duplicate-line'; index: number }
  | { kind: 'bytes'; bytes: Uint8Array };

const token = fc.oneof(fc.constantFrom(...ODD_TOKENS), fc.string({ maxLength: 20 }));
const garbling: fc.Arbitrary<Garbling> = fc.oneof(
  fc.constant({ kind: 'delete' as const }),
  fc.constant({ kind: 'empty' as const }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('token' as const), index: fc.nat(), token }),
  fc.record({ kind: fc.constant('number' as const), index: fc.nat(), token }),
  fc.record({ kind: fc.constant('line' as const), index: fc.nat(), text: fc.string({ unit: 'binary', maxLength: 300 }) }),
  fc.record({ kind: fc.constant('duplicate-line' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 2000 }) }),
);

/** Replaces the `index`-th (modulo) match of `pattern` in `text`. */
function replaceNth(text: string, pattern: RegExp, index: number, replacement: string): string {
  const matches = [...text.matchAll(pattern)];
  if (matches.length === 0) return replacement;
  const match = matches[index % matches.length]!;
  return text.slice(0, match.index) + replacement + text.slice(match.index + match[0].length);
}

function garble(original: Buffer, g: Garbling): Buffer | null {
  const text = original.toString('utf8');
  const lines = text.split('\n');
  switch (g.kind) {
    case 'delete':
      return null;
    case 'empty':
      return Buffer.alloc(0);
    case 'truncate':
      return original.subarray(0, original.length === 0 ? 0 : g.at % original.length);
    case 'token':
      return Buffer.from(replaceNth(text, /[^\s]+/g, g.index, g.token));
    case 'number':
      return Buffer.from(replaceNth(text, /\d+(?:\.\d+)?/g, g.index, g.token));
    case 'line':
      lines[g.index % lines.length] = g.text;
      return Buffer.from(lines.join('\n'));
    case 'duplicate-line': {
      const i = g.index % lines.length;
      lines.splice(i, 0, lines[i]!);
      return Buffer.from(lines.join('\n'));
    }
    case 'bytes':
      return Buffer.from(g.bytes);
  }
}

let base: string;
let cleanup: () => Promise<void>;
const cases: { pair: TreePair; files: string[] }[] = [];

beforeAll(async () => {
  ({ base, cleanup } = await copyFixtures());
  for (const fixturePair of TREE_PAIRS) {
    const files = (await Promise.all(fixturePair.trees.map((tree) => regularFiles(path.join(base, tree))))).flat();
    cases.push({ pair: pairUnder(base, fixturePair), files });
  }
});
afterAll(() => cleanup());

test('one garbled, truncated or missing file never yields a section the protocol or the ingest refuses', { timeout: 120_000 }, async () => {
  expect(cases.map((c) => c.files.length).every((n) => n > 0)).toBe(true);
  await fc.assert(
    fc.asyncProperty(fc.nat(), fc.nat(), garbling, async (caseIndex, fileIndex, g) => {
      const { pair, files } = cases[caseIndex % cases.length]!;
      const file = files[fileIndex % files.length]!;
      const original = await readFile(file);
      const changed = garble(original, g);
      try {
        if (changed === null) await rm(file);
        else await writeFile(file, changed);
        const sections = await collectSections(pair);
        expect(refusedSections(sections), `${pair.name}: ${path.relative(base, file)}`).toEqual([]);
        expect(unstorable(sections), `${pair.name}: ${path.relative(base, file)}`).toBeNull();
      } finally {
        await writeFile(file, original);
      }
    }),
    { numRuns: 400 },
  );
});
