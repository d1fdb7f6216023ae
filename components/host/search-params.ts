import { createLoader, createSerializer, parseAsArrayOf, parseAsBoolean, parseAsIsoDateTime, parseAsString, parseAsStringLiteral } from 'nuqs/server';
import { RANGE_PRESETS } from './time-range';

/**
 * The host page's URL state, parsed alike by app/hosts/[id]/page.tsx and the client leaves. `from` and `to`, when
 * both are set, pin the range (a zoom, a custom range, a shared link); else `range` follows now.
 */
export const hostSearchParams = {
  range: parseAsStringLiteral(RANGE_PRESETS).withDefault('1h'),
  from: parseAsIsoDateTime,
  to: parseAsIsoDateTime,
  /** Poll a relative range. */
  live: parseAsBoolean.withDefault(true),
  /** Overlay the same range a week earlier on the charts. */
  lastWeek: parseAsBoolean.withDefault(false),
  /** Latency series to chart; the busiest few when empty. */
  latency: parseAsArrayOf(parseAsString).withDefault([]),
};


export const loadHostSearchParams = createLoader(hostSearchParams);
export const serializeHostUrl = createSerializer(hostSearchParams);
