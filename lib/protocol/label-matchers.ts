import { RE2JS } from 're2js';

/**
 * Label matchers as Alertmanager applies them (pkg/labels/matcher.go): a regex is RE2 syntax anchored as
 * `^(?:value)$`, a missing label is the empty string, isEqual false negates. RE2 matches in time linear in the value,
 * where a backtracking engine (JavaScript's RegExp) takes exponential time on patterns such as `(a+)+$`, and label
 * values come from agents. Shared by the server and the browser, so both judge a silence alike.
 */
export interface MatcherLike {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

type Compiled = { regex: RE2JS } | { error: string };

const MAX_CACHED = 1000;
const compiledByPattern = new Map<string, Compiled>();

function compile(pattern: string): Compiled {
  let compiled = compiledByPattern.get(pattern);
  if (!compiled) {
    try {
      compiled = { regex: RE2JS.compile(`^(?:${pattern})$`) };
    } catch (err) {
      compiled = { error: err instanceof Error ? err.message : String(err) };
    }
    if (compiledByPattern.size >= MAX_CACHED) compiledByPattern.clear();
    compiledByPattern.set(pattern, compiled);
  }
  return compiled;
}

/** Why RE2 refuses `pattern` as a matcher's regex (a backreference, a lookaround, bad syntax), or null. */
export function labelRegexError(pattern: string): string | null {
  const compiled = compile(pattern);
  return 'error' in compiled ? compiled.error : null;
}

/**
 * Whether `matcher` holds for `labels`. A regex RE2 refuses (one stored before matchers were RE2) matches nothing,
 * negated or not, so it neither silences nor routes everything; `onUnusable` hears of it.
 */
export function matcherMatches(
  matcher: MatcherLike,
  labels: Record<string, string>,
  onUnusable?: (matcher: MatcherLike, reason: string) => void,
): boolean {
  // Own keys only: a label named constructor or toString is not Object.prototype's.
  const value = Object.hasOwn(labels, matcher.name) ? labels[matcher.name]! : '';
  if (!matcher.isRegex) return (value === matcher.value) === matcher.isEqual;
  const compiled = compile(matcher.value);
  if ('error' in compiled) {
    onUnusable?.(matcher, compiled.error);
    return false;
  }
  // test, not testExact: Alertmanager's MatchString searches the anchored expression, which differs for `a)|(b`.
  return compiled.regex.test(value) === matcher.isEqual;
}
