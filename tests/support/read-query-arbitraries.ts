import fc from 'fast-check';
import { COMPARE_METRICS, COMPARE_RANKS } from '../../lib/protocol/read-api/compare-metrics';
import { FINDING_FILTERS, FLEET_SORTS, HOST_STATUSES, SORT_DIRECTIONS, SPARKLINE_METRICS } from '../../lib/protocol/read-api/fleet';
import { SERIES_METRICS } from '../../lib/protocol/read-api/series-metrics';

/**
 * Random query strings for the read API: each route's own keys with good values and odd ones (times in every
 * format, huge and negative numbers, label lists, unicode, NUL), repeated keys, unknown keys, and raw
 * percent-encoding that is not valid UTF-8.
 */
const nowMs = Date.now();

const timeArb = fc.oneof(
  fc.constantFrom(
    String(nowMs - 3_600_000), String(nowMs), '0', '-1', '1', '99999999999999999999', '8640000000000000', '8640000000000001', '1e3', '0x10',
    '2026-01-31', '2026-02-30', '2026-13-01', '2026-01-31T12:00:00Z', '2026-01-31T24:00:00Z', '2026-01-31T23:59:60Z',
    '2026-01-31T14:00:00+02:00', '2026-01-31T14:00:00+24:00', '2026-01-31T14:00:00.123456789Z', '+002026-01-31', '0000-01-01',
    '9999-12-31T23:59:59Z', '275760-09-13', '１７００００００００', 'now', 'yesterday', '', ' ', 'Infinity', 'NaN',
  ),
  fc.integer({ min: 0, max: 8_700_000_000_000_000 }).map(String),
  fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ min: new Date(nowMs - 500 * 86_400_000), max: new Date(nowMs + 86_400_000), noInvalidDate: true }).map((d) => String(d.getTime())),
);

const numberArb = fc.oneof(
  fc.constantFrom('0', '1', '-1', '10', '500', '5000', '5001', '100000', '1e400', '1e3', 'NaN', 'Infinity', '-Infinity', '0x10', '1.5', ' 5', '', '9007199254740993', '2147483648'),
  fc.integer({ min: -1_000_000, max: 10_000_000 }).map(String),
);

const oddArb = fc.oneof(
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '%', '\ud800', '😀', '\u202e', "'", '"', '\\', '*', '_', 'a:b', ':', ',', ',,,', 'a,b', 'a:b,c', '__proto__', 'constructor'),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)),
);

const labelsArb = fc.oneof(fc.constantFrom('model:llama', 'team:ml', 'model:llama,team:ml', 'a:', ':b', 'a', 'a:b,,c:d', 'x:\u0000', '__proto__:x', 'constructor:y'), oddArb);
const idListArb = fc.oneof(fc.constantFrom('1', '1,2,3', '1,,2', ',', '-1', '0', '2147483648', 'a', '1.5'), fc.array(numberArb, { maxLength: 600 }).map((ids) => ids.join(',')));

const enumArb = (values: readonly string[]) => fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 4 }, { arbitrary: oddArb, weight: 1 });

/** The keys each route reads, with what to put in them. */
const KEYS: Record<string, fc.Arbitrary<string>> = {
  from: timeArb,
  to: timeArb,
  limit: numberArb,
  page: numberArb,
  points: numberArb,
  maxPoints: numberArb,
  host: fc.oneof(numberArb, oddArb),
  hosts: idListArb,
  ids: idListArb,
  region: fc.oneof(fc.constantFrom('oslo', 'frankfurt', 'nowhere'), oddArb),
  regions: fc.oneof(fc.constantFrom('oslo,frankfurt', 'oslo', ','), oddArb),
  labels: labelsArb,
  label: labelsArb,
  name: fc.oneof(fc.constantFrom('inference.request', 'inference.queue', 'nothing'), oddArb),
  latency: fc.oneof(fc.constantFrom('inference.request', 'tokenizer.encode'), oddArb),
  key: fc.oneof(fc.constantFrom('vda', 'nvme0n1', 'triton', '/system.slice/inference.service'), oddArb),
  q: oddArb,
  metric: enumArb([...new Set([...COMPARE_METRICS, ...SERIES_METRICS, ...SPARKLINE_METRICS])]),
  rank: enumArb(COMPARE_RANKS),
  status: fc.oneof(enumArb(HOST_STATUSES), fc.constantFrom('ok,stale', 'ok,,never_reported')),
  finding: enumArb(FINDING_FILTERS),
  sort: enumArb(FLEET_SORTS),
  dir: enumArb(SORT_DIRECTIONS),
  state: enumArb(['active', 'pending', 'firing', 'resolved', 'open', 'expired', 'all']),
  severity: enumArb(['critical', 'warning', 'info']),
  rule: fc.oneof(fc.constantFrom('steal-spike', 'cpu.avx512-hidden', 'a..b'), oddArb),
  channel: numberArb,
  alert: numberArb,
};

const timeText = (min: number, max: number) => fc.integer({ min, max }).chain((ms) => fc.constantFrom(String(ms), new Date(ms).toISOString()));

/** Values each key takes when it is used as meant, so that queries also get past the schema to the handlers. */
const GOOD: Record<string, fc.Arbitrary<string>> = {
  from: timeText(nowMs - 3 * 86_400_000, nowMs - 3_600_000),
  to: timeText(nowMs - 3_600_000 + 1, nowMs),
  limit: fc.integer({ min: 1, max: 100 }).map(String),
  page: fc.integer({ min: 1, max: 3 }).map(String),
  points: fc.integer({ min: 1, max: 300 }).map(String),
  maxPoints: fc.integer({ min: 10, max: 300 }).map(String),
  region: fc.constantFrom('oslo', 'frankfurt', 'nowhere'),
  regions: fc.constantFrom('oslo,frankfurt', 'oslo', 'frankfurt'),
  labels: fc.constantFrom('model:llama', 'team:ml', 'model:llama,team:ml'),
  label: fc.constantFrom('model:llama', 'team:ml'),
  name: fc.constantFrom('inference.request', 'inference.queue', 'nothing'),
  latency: fc.constantFrom('inference.request', 'tokenizer.encode'),
  key: fc.constantFrom('vda', 'nvme0n1', 'triton', '/system.slice/inference.service', 'edge', 'vllm'),
  q: fc.constantFrom('oslo', 'a', 'llama', 'ø', '%', '_'),
  metric: fc.constantFrom(...new Set([...COMPARE_METRICS, ...SERIES_METRICS, ...SPARKLINE_METRICS])),
  rank: fc.constantFrom(...COMPARE_RANKS),
  status: fc.constantFrom(...HOST_STATUSES, 'ok,stale'),
  finding: fc.constantFrom(...FINDING_FILTERS),
  sort: fc.constantFrom(...FLEET_SORTS),
  dir: fc.constantFrom(...SORT_DIRECTIONS),
  state: fc.constantFrom('active', 'open', 'resolved', 'all'),
  severity: fc.constantFrom('critical', 'warning', 'info'),
  rule: fc.constantFrom('steal-spike', 'cpu.avx512-hidden'),
  channel: fc.constantFrom('1', '2'),
  alert: fc.constantFrom('1', '2'),
};

const RAW_PARTS = ['%', '%zz', '%00', '%C0%80', '%ED%A0%80', '%FF', '+', '&&', '=', '==', '&=&', '%26', '#x'];

export interface ReadQuery {
  /** The query string, without `?`. */
  search: string;
  /** The `:id` path segment, for host and finding routes. */
  id: string;
}

/** A query for a route that reads `keys`: some of them (some twice), maybe an unknown one, maybe raw bytes. */
export interface RouteKeys {
  /** Every key the route reads. */
  keys: readonly string[];
  /** The keys it cannot do without; a query that uses the route as meant always has them. */
  required?: readonly string[];
  /** Its own good values where they differ from the shared ones (the metrics it serves). */
  good?: Record<string, fc.Arbitrary<string>>;
}

/** A query for a route: half use its keys as meant (and so reach the handler), half anything at all. */
export function readQueryArb(route: RouteKeys, hostIds: readonly number[]): fc.Arbitrary<ReadQuery> {
  const { keys, required = [] } = route;
  const ids = fc.subarray([...hostIds], { minLength: 1 }).map((list) => list.join(','));
  const goodValue = (key: string) =>
    route.good?.[key] ?? (key === 'hosts' || key === 'ids' ? ids : key === 'host' ? fc.constantFrom(...hostIds.map(String)) : GOOD[key]!);
  const unknownPair = fc.tuple(fc.constantFrom('unknown', 'from[]', 'FROM', '__proto__', ''), oddArb);
  const wildPair =
    keys.length === 0
      ? unknownPair
      : fc.oneof({ arbitrary: fc.constantFrom(...keys).chain((key) => KEYS[key]!.map((value) => [key, value] as const)), weight: 8 }, { arbitrary: unknownPair, weight: 1 });
  const optional = keys.filter((key) => !required.includes(key));
  const meant = fc
    .tuple(fc.subarray(optional), ...required.map((key) => goodValue(key).map((value) => [key, value] as const)))
    .chain(([chosen, ...given]) => fc.tuple(fc.constant(given), ...chosen.map((key) => goodValue(key).map((value) => [key, value] as const))))
    .map(([given, ...rest]) => [...given, ...rest]);
  const idArb = fc.oneof(
    { arbitrary: fc.constantFrom(...hostIds.map(String)), weight: 6 },
    { arbitrary: fc.constantFrom('0', '-1', '999999', '2147483648', 'abc', '1e3', ' 1', '1.0', '０'), weight: 1 },
  );
  return fc
    .record({ pairs: fc.oneof(meant, fc.array(wildPair, { maxLength: 8 })), raw: fc.option(fc.constantFrom(...RAW_PARTS), { freq: 8 }), id: idArb })
    .map(({ pairs, raw, id }) => {
      const search = new URLSearchParams(pairs.map(([k, v]) => [k, v])).toString();
      return { search: raw ? `${search}&${keys[0] ?? 'x'}=${raw}` : search, id };
    });
}
