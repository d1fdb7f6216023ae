import {
  createLoader,
  createSerializer,
  parseAsArrayOf,
  parseAsBoolean,
  parseAsInteger,
  parseAsIsoDateTime,
  parseAsString,
  parseAsStringLiteral,
  type inferParserType,
} from 'nuqs/server';
import { COMPARE_METRICS, COMPARE_RANKS, DEFAULT_COMPARE_LIMIT } from '@/lib/protocol/read-api/compare-metrics';
import { RANGE_PRESETS } from '../host/time-range';

export const COMPARE_SCOPES = ['region', 'labels', 'hosts', 'fleet'] as const;
export type CompareScopeKind = (typeof COMPARE_SCOPES)[number];
/** The limits the page offers; any from 1 to MAX_COMPARE_LIMIT works in the URL. */
export const COMPARE_LIMITS = [5, 10, 20, 50] as const;

/** The compare page's URL state, parsed alike by app/compare/page.tsx and the client leaves. */
export const compareSearchParams = {
  metric: parseAsStringLiteral(COMPARE_METRICS).withDefault('cpu_steal'),
  /** Which hosts: a region's, a label set's, picked ones, or the whole fleet. */
  by: parseAsStringLiteral(COMPARE_SCOPES).withDefault('region'),
  region: parseAsString,
  labels: parseAsString,
  hosts: parseAsArrayOf(parseAsInteger).withDefault([]),
  latency: parseAsString,
  key: parseAsString,
  rank: parseAsStringLiteral(COMPARE_RANKS).withDefault('avg'),
  limit: parseAsInteger.withDefault(DEFAULT_COMPARE_LIMIT),
  range: parseAsStringLiteral(RANGE_PRESETS).withDefault('1h'),
  from: parseAsIsoDateTime,
  to: parseAsIsoDateTime,
  live: parseAsBoolean.withDefault(true),
};

export type CompareUrlState = inferParserType<typeof compareSearchParams>;

export const loadCompareSearchParams = createLoader(compareSearchParams);
export const serializeCompareUrl = createSerializer(compareSearchParams);
