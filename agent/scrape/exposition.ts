/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (what prometheus_client, prometheus-cpp, the Rust
 * metrics exporter and the Java simpleclient serve on /metrics). Anything it does not understand is an
 * ExpositionError naming the line: the caller drops that scrape whole rather than guess.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: `x_bucket`, `x_count`, `x_sum` for a histogram family `x`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

export class ExpositionError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TIMESTAMP = /^-?\d{1,19}$/;
const MAX_LABELS = 64;
const MAX_LINE_LENGTH = 64 * 1024;

/** Parses a Prometheus number: a decimal float, `NaN`, `+Inf`/`Inf` or `-Inf`; NaN (the JS value) when it is none. */
export function parsePromNumber(text: string): number {
  if (FLOAT.test(text)) return Number(text);
  switch (text) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    default:
      return Number.NaN;
  }
}

/** The suffixes a family's samples may carry, by its type. */
function suffixesOf(type: MetricType): readonly string[] {
  if (type === 'histogram') return ['_bucket', '_count', '_sum'];
  if (type === 'summary') return ['_count', '_sum', ''];
  return [''];
}

/** Parses a whole exposition; throws ExpositionError at the first line that breaks the format. */
export function parseExposition(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  /** Sample name → family, for names declared by TYPE (histogram `x` claims `x_bucket`, `x_count`, `x_sum`). */
  const claimed = new Map<string, MetricFamily>();
  const helpSeen = new Set<string>();
  const typeSeen = new Set<string>();
  const seriesSeen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();

  const familyFor = (name: string, lineNo: number): MetricFamily => {
    const owner = claimed.get(name);
    if (owner) return owner;
    let family = families.get(name);
    if (!family) {
      family = { name, type: 'untyped', help: null, samples: [] };
      families.set(name, family);
      claimed.set(name, family);
    }
    if (family.type !== 'untyped' && !suffixesOf(family.type).includes('')) {
      throw new ExpositionError(lineNo, `sample "${name}" has the bare name of a ${family.type}`);
    }
    return family;
  };

  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!;
    if (raw.length > MAX_LINE_LENGTH) throw new ExpositionError(lineNo, `line longer than ${MAX_LINE_LENGTH} characters`);
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      parseComment(line, lineNo, families, claimed, { helpSeen, typeSeen });
      continue;
    }
    const sample = parseSampleLine(line, lineNo);
    const family = familyFor(sample.name, lineNo);
    const seriesKey = `${sample.name}\u0000${canonicalLabels(sample.labels)}`;
    if (seriesSeen.has(seriesKey)) throw new ExpositionError(lineNo, `duplicate sample ${sample.name}${formatLabels(sample.labels)}`);
    seriesSeen.add(seriesKey);
    family.samples.push(sample);
  }
  return [...families.values()];
}

function parseComment(
  line: string,
  lineNo: number,
  families: Map<string, MetricFamily>,
  claimed: Map<string, MetricFamily>,
  { helpSeen, typeSeen }: { helpSeen: Set<string>; typeSeen: Set<string> },
): void {
  const match = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
  if (!match) return; // a plain comment
  const [, keyword, name, rest = ''] = match as unknown as [string, 'HELP' | 'TYPE', string, string | undefined];
  if (!METRIC_NAME.test(name)) throw new ExpositionError(lineNo, `invalid metric name "${name}" in ${keyword}`);
  if (keyword === 'HELP') {
    if (helpSeen.has(name)) throw new ExpositionError(lineNo, `second HELP line for "${name}"`);
    helpSeen.add(name);
    const family = families.get(name);
    const help = unescapeHelp(rest);
    if (family) family.help = help;
    else families.set(name, { name, type: 'untyped', help, samples: [] });
    return;
  }
  const type = rest.trim() as MetricType;
  if (!TYPES.has(type)) throw new ExpositionError(lineNo, `unknown type "${rest.trim()}" for "${name}"`);
  if (typeSeen.has(name)) throw new ExpositionError(lineNo, `second TYPE line for "${name}"`);
  typeSeen.add(name);
  let family = families.get(name);
  if (family && (family.samples.length > 0 || claimed.get(name) === family)) {
    throw new ExpositionError(lineNo, `TYPE line for "${name}" after its samples`);
  }
  if (!family) {
    family = { name, type, help: null, samples: [] };
    families.set(name, family);
  }
  family.type = type;
  for (const suffix of suffixesOf(type)) {
    const sampleName = name + suffix;
    const owner = claimed.get(sampleName);
    if (owner && owner !== family) throw new ExpositionError(lineNo, `"${sampleName}" already belongs to "${owner.name}"`);
    claimed.set(sampleName, family);
  }
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Parses `name{labels} value [timestamp]`. */
function parseSampleLine(line: string, lineNo: number): Sample {
  let pos = 0;
  const fail = (reason: string): never => {
    throw new ExpositionError(lineNo, reason);
  };
  while (line[pos] === ' ' || line[pos] === '\t') pos++;
  const nameStart = pos;
  while (pos < line.length && /[a-zA-Z0-9_:]/.test(line[pos]!)) pos++;
  const name = line.slice(nameStart, pos);
  if (!METRIC_NAME.test(name)) fail(`invalid metric name at "${line.slice(nameStart, nameStart + 40)}"`);
  const labels: Record<string, string> = {};
  while (line[pos] === ' ' || line[pos] === '\t') pos++;
  if (line[pos] === '{') {
    pos = parseLabels(line, pos + 1, labels, fail);
  }
  const rest = line.slice(pos).trim().split(/[ \t]+/);
  if (rest.length === 0 || rest[0] === '') fail(`no value for "${name}"`);
  if (rest.length > 2) fail(`unexpected text after the value of "${name}"`);
  const value = parsePromNumber(rest[0]!);
  if (Number.isNaN(value) && rest[0] !== 'NaN') fail(`invalid value "${rest[0]}" for "${name}"`);
  if (rest.length === 2 && !TIMESTAMP.test(rest[1]!)) fail(`invalid timestamp "${rest[1]}" for "${name}"`);
  return { name, labels, value };
}

/** Parses labels from just after `{` through `}`; returns the position after `}`. */
function parseLabels(line: string, start: number, labels: Record<string, string>, fail: (reason: string) => never): number {
  let pos = start;
  let count = 0;
  const skipSpace = () => {
    while (line[pos] === ' ' || line[pos] === '\t') pos++;
  };
  for (;;) {
    skipSpace();
    if (line[pos] === '}') return pos + 1;
    const nameStart = pos;
    while (pos < line.length && /[a-zA-Z0-9_]/.test(line[pos]!)) pos++;
    const labelName = line.slice(nameStart, pos);
    if (!LABEL_NAME.test(labelName)) fail(`invalid label name at "${line.slice(nameStart, nameStart + 40)}"`);
    skipSpace();
    if (line[pos] !== '=') fail(`expected "=" after label "${labelName}"`);
    pos++;
    skipSpace();
    if (line[pos] !== '"') fail(`expected a quoted value for label "${labelName}"`);
    pos++;
    let value = '';
    for (;;) {
      const c = line[pos];
      if (c === undefined) fail(`unterminated value of label "${labelName}"`);
      if (c === '"') break;
      if (c === '\\') {
        const next = line[pos + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else fail(`invalid escape "\\${next ?? ''}" in label "${labelName}"`);
        pos += 2;
        continue;
      }
      value += c;
      pos++;
    }
    pos++;
    if (Object.hasOwn(labels, labelName)) fail(`label "${labelName}" given twice`);
    if (++count > MAX_LABELS) fail(`more than ${MAX_LABELS} labels`);
    labels[labelName] = value;
    skipSpace();
    if (line[pos] === ',') {
      pos++;
      continue;
    }
    if (line[pos] === '}') return pos + 1;
    fail(`expected "," or "}" after label "${labelName}"`);
  }
}

/** Labels as one string with keys sorted: equal label sets give equal strings. */
export function canonicalLabels(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0001${labels[k]}`)
    .join('\u0000');
}

function formatLabels(labels: Record<string, string>): string {
  const keys = Object.keys(labels);
  return keys.length ? `{${keys.map((k) => `${k}=${JSON.stringify(labels[k])}`).join(',')}}` : '';
}
