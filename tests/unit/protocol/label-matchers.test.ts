import { describe, expect, test, vi } from 'vitest';
import { labelMatcherSchema, silenceInputSchema, storedLabelMatcherSchema } from '@/lib/protocol/alerts';
import { labelRegexError, matcherMatches, type MatcherLike } from '@/lib/protocol/label-matchers';

const labels = { alertname: 'steal-spike', severity: 'warning', host: 'gpu-1', region: 'oslo' };
const eq = (name: string, value: string): MatcherLike => ({ name, value, isRegex: false, isEqual: true });
const ne = (name: string, value: string): MatcherLike => ({ name, value, isRegex: false, isEqual: false });
const re = (name: string, value: string): MatcherLike => ({ name, value, isRegex: true, isEqual: true });
const nre = (name: string, value: string): MatcherLike => ({ name, value, isRegex: true, isEqual: false });

describe('Alertmanager\'s semantics for =, !=, =~ and !~', () => {
  test.each([
    ['host="gpu-1"', eq('host', 'gpu-1'), true],
    ['host="gpu-2"', eq('host', 'gpu-2'), false],
    ['device="" (a missing label is the empty string)', eq('device', ''), true],
    ['host!="gpu-1"', ne('host', 'gpu-1'), false],
    ['host!="gpu-2"', ne('host', 'gpu-2'), true],
    ['device!="" (missing)', ne('device', ''), false],
    ['host=~"gpu-.*"', re('host', 'gpu-.*'), true],
    ['host=~"gpu" (anchored at both ends)', re('host', 'gpu'), false],
    ['host=~"pu-1" (anchored at the start)', re('host', 'pu-1'), false],
    ['region=~"oslo|fra" (the alternation is anchored as a whole)', re('region', 'oslo|fra'), true],
    ['region=~"os|oslox"', re('region', 'os|oslox'), false],
    ['host=~"(?i)GPU-1" (flags inside the pattern)', re('host', '(?i)GPU-1'), true],
    ['host=~"gpu-\\d+"', re('host', 'gpu-\\d+'), true],
    ['device=~"" (missing matches the empty pattern)', re('device', ''), true],
    ['device=~".+" (missing does not match)', re('device', '.+'), false],
    ['host!~"gpu-.*"', nre('host', 'gpu-.*'), false],
    ['host!~"cpu-.*"', nre('host', 'cpu-.*'), true],
    ['device!~".+" (missing)', nre('device', '.+'), true],
  ])('%s is %s', (_, matcher, expected) => {
    expect(matcherMatches(matcher, labels)).toBe(expected);
  });

  test('. does not match a newline and $ is the end of the value, as in Go\'s regexp', () => {
    expect(matcherMatches(re('x', 'a.b'), { x: 'a\nb' })).toBe(false);
    expect(matcherMatches(re('x', '(?s)a.b'), { x: 'a\nb' })).toBe(true);
    expect(matcherMatches(re('x', 'a'), { x: 'a\n' })).toBe(false);
  });

  test('a label named like an Object.prototype member is a missing label, not the prototype\'s function', () => {
    expect(matcherMatches(eq('constructor', ''), {})).toBe(true);
    expect(matcherMatches(re('toString', '.+'), {})).toBe(false);
    expect(matcherMatches(nre('constructor', 'function.*'), {})).toBe(true);
  });
});

describe('linear time', () => {
  // JavaScript's RegExp takes seconds on (a+)+$ against 30 characters, and would not finish on these.
  test('a catastrophic pattern on a 10,000-character value gives the right answer', () => {
    const as = 'a'.repeat(10_000);
    expect(matcherMatches(re('host', '(a+)+$'), { host: `${as}b` })).toBe(false);
    expect(matcherMatches(re('host', '(a+)+$'), { host: as })).toBe(true);
    expect(matcherMatches(nre('host', '(a|aa)*c'), { host: `${as}b` })).toBe(true);
    expect(matcherMatches(re('host', '(x+x+)+y'), { host: 'x'.repeat(10_000) })).toBe(false);
  });
});

describe('what RE2 refuses', () => {
  test.each([
    ['a lookahead', 'gpu-(?=1)'],
    ['a negative lookahead', '(?!gpu).*'],
    ['a lookbehind', '(?<=gpu)-1'],
    ['a backreference', '(a)\\1'],
    ['a possessive quantifier', 'a++'],
    ['a repeat count over 1000', 'a{1001}'],
    ['an unbalanced group', '('],
  ])('%s (%s) has a reason', (_, pattern) => {
    expect(labelRegexError(pattern)).toMatch(/^error parsing regexp: /);
  });

  test('Go\'s syntax that JavaScript lacks is accepted', () => {
    for (const pattern of ['[[:alpha:]]+', '\\pL+', '(?P<n>gpu)-\\d', '\\Qa.b\\E', '(?i:GPU)-1']) expect(labelRegexError(pattern)).toBeNull();
  });

  test('the API schema refuses it naming the value, and a silence names the matcher', () => {
    const refused = labelMatcherSchema.safeParse(re('host', 'gpu-(?=1)'));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['value', 'is not an RE2 regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ]);
    const silence = silenceInputSchema.safeParse({ matchers: [eq('host', 'a'), re('host', '(a)\\1')], endsAt: '2030-01-01T00:00:00Z', comment: 'x', createdBy: 'y' });
    expect(silence.error?.issues.map((i) => i.path.join('.'))).toEqual(['matchers.1.value']);
    expect(labelMatcherSchema.safeParse(nre('host', 'gpu-(?=1)')).success).toBe(false);
    expect(labelMatcherSchema.safeParse(eq('host', 'gpu-(?=1)')).success).toBe(true);
  });

  test('a stored matcher RE2 refuses still reads, and matches nothing, negated or not, saying so', () => {
    expect(storedLabelMatcherSchema.parse(re('host', 'gpu-(?=1)'))).toEqual(re('host', 'gpu-(?=1)'));
    const onUnusable = vi.fn();
    expect(matcherMatches(re('host', 'gpu-(?=1)'), labels, onUnusable)).toBe(false);
    expect(matcherMatches(nre('host', 'gpu-(?=1)'), labels, onUnusable)).toBe(false);
    expect(onUnusable).toHaveBeenCalledTimes(2);
    expect(onUnusable.mock.calls[0]![1]).toContain('invalid or unsupported Perl syntax');
  });
});
