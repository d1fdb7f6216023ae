import type { FindingFilter, FleetSort, HostStatus, SortDirection } from '@/lib/protocol/read-api/fleet';
import { DEFAULT_SORT_DIRECTION } from '@/lib/protocol/read-api/fleet';
import { labelsSchema } from '@/lib/protocol/read-api/params';
import type { FleetUrlState } from './search-params';

/** What the host table asks GET /api/v1/fleet for: the URL state with empty filters left out, so keys stay stable. */
export interface FleetQuery {
  q?: string;
  regions?: string[];
  status?: HostStatus[];
  finding?: FindingFilter;
  label?: string;
  latency?: string;
  sort: FleetSort;
  dir: SortDirection;
  page: number;
  limit: number;
}

/** Whether the label filter text is one the API accepts (`key:value,key:value`); empty is fine. */
export function labelFilterError(text: string): string | null {
  if (text.trim() === '') return null;
  const parsed = labelsSchema.safeParse(text);
  return parsed.success ? null : 'Write labels as key:value, several separated by commas.';
}

export function toFleetQuery(state: FleetUrlState): FleetQuery {
  const query: FleetQuery = {
    sort: state.sort,
    dir: state.dir ?? DEFAULT_SORT_DIRECTION[state.sort],
    page: Math.max(1, state.page),
    limit: state.limit,
  };
  const q = state.q.trim();
  if (q) query.q = q;
  if (state.region.length) query.regions = [...state.region].sort();
  if (state.status.length) query.status = [...state.status].sort();
  if (state.finding) query.finding = state.finding;
  if (state.label.trim() && labelFilterError(state.label) === null) query.label = state.label.trim();
  if (state.latency) query.latency = state.latency;
  return query;
}

export const fleetQueryKey = (query: FleetQuery) => ['fleet', query] as const;

/** The query string of GET /api/v1/fleet for `query` (lists comma-separated, as the API parses them). */
export function fleetQueryString(query: FleetQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  return params.toString();
}

/** The URL change a click on a column header makes: the same column flips direction, another starts at its default. */
export function nextSort(current: { sort: FleetSort; dir: SortDirection }, column: FleetSort): { sort: FleetSort; dir: SortDirection } {
  if (current.sort === column) return { sort: column, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { sort: column, dir: DEFAULT_SORT_DIRECTION[column] };
}

/** `aria-sort` of a column header. */
export function ariaSort(current: { sort: FleetSort; dir: SortDirection }, column: FleetSort): 'ascending' | 'descending' | 'none' {
  if (current.sort !== column) return 'none';
  return current.dir === 'asc' ? 'ascending' : 'descending';
}
