import { createLoader, createSerializer, parseAsArrayOf, parseAsIsoDateTime, parseAsString, parseAsStringLiteral, type inferParserType } from 'nuqs/server';

export const REGION_RANGES = ['1h', '6h', '24h', '7d'] as const;
export type RegionRange = (typeof REGION_RANGES)[number];
export const RANGE_MS: Record<RegionRange, number> = { '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

/** The regions page's URL state. `from` and `to`, when both are set, pin the range (what a shared link carries). */
export const regionSearchParams = {
  regions: parseAsArrayOf(parseAsString).withDefault([]),
  range: parseAsStringLiteral(REGION_RANGES).withDefault('24h'),
  from: parseAsIsoDateTime,
  to: parseAsIsoDateTime,
  latency: parseAsString,
};

export type RegionUrlState = inferParserType<typeof regionSearchParams>;

export const loadRegionSearchParams = createLoader(regionSearchParams);
export const serializeRegionUrl = createSerializer(regionSearchParams);
