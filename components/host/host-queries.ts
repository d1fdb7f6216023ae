import { createSerializer, parseAsArrayOf, parseAsString } from 'nuqs/server';

/** Query keys and queries the server page prefetches and the client hooks read: one module neither side marks. */
export const hostQueryKey = (hostId: number) => ['host', { hostId }] as const;
/** The host's findings as the findings hook asks for them (GET /api/v1/findings): all states, its history too. */
export const hostFindingsQuery = (hostId: number) => ({ host: hostId, state: 'all' as const, limit: 200 });

/** The fleet page filtered to one region (its `region` parameter, without the fleet parsers' zod-backed lists). */
export const fleetRegionUrl = (region: string) => createSerializer({ region: parseAsArrayOf(parseAsString) })('/', { region: [region] });
