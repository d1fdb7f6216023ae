import {
  createLoader,
  createSerializer,
  parseAsArrayOf,
  parseAsInteger,
  parseAsNumberLiteral,
  parseAsString,
  parseAsStringLiteral,
  type inferParserType,
} from 'nuqs/server';
import {
  DEFAULT_FLEET_PAGE_SIZE,
  FINDING_FILTERS,
  FLEET_PAGE_SIZES,
  FLEET_SORTS,
  HOST_STATUSES,
  SORT_DIRECTIONS,
} from '@/lib/protocol/read-api/fleet';

/** The fleet page's URL state, parsed alike by app/page.tsx (server) and the client leaves. */
export const fleetSearchParams = {
  q: parseAsString.withDefault(''),
  region: parseAsArrayOf(parseAsString).withDefault([]),
  status: parseAsArrayOf(parseAsStringLiteral(HOST_STATUSES)).withDefault([]),
  finding: parseAsStringLiteral(FINDING_FILTERS),
  label: parseAsString.withDefault(''),
  latency: parseAsString,
  sort: parseAsStringLiteral(FLEET_SORTS).withDefault('attention'),
  dir: parseAsStringLiteral(SORT_DIRECTIONS),
  page: parseAsInteger.withDefault(1),
  limit: parseAsNumberLiteral(FLEET_PAGE_SIZES).withDefault(DEFAULT_FLEET_PAGE_SIZE),
};

export type FleetUrlState = inferParserType<typeof fleetSearchParams>;

export const loadFleetSearchParams = createLoader(fleetSearchParams);
export const serializeFleetUrl = createSerializer(fleetSearchParams);
