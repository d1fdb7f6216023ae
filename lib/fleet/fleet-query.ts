import {
  DEFAULT_FLEET_PAGE_SIZE,
  DEFAULT_SORT_DIRECTION,
  type FleetPageInfo,
  type FleetParams,
  type FleetSort,
  type SortDirection,
} from '../protocol/read-api/fleet';

/** The host table's sort and paging decisions, pure; the filtering and ordering itself is SQL (fleet-page-sql.ts). */

export function resolveSort(params: Pick<FleetParams, 'sort' | 'dir'>): { sort: FleetSort; dir: SortDirection } {
  const sort = params.sort ?? 'attention';
  return { sort, dir: params.dir ?? DEFAULT_SORT_DIRECTION[sort] };
}

/** The page `params` asks for, clamped to the last page; every item when it asks for none. */
export function pageOf<T>(items: readonly T[], params: Pick<FleetParams, 'page' | 'limit'>): { items: T[]; page: number; limit: number; pages: number } {
  if (params.page === undefined && params.limit === undefined) {
    return { items: [...items], page: 1, limit: Math.max(1, items.length), pages: 1 };
  }
  const limit = params.limit ?? DEFAULT_FLEET_PAGE_SIZE;
  const pages = Math.max(1, Math.ceil(items.length / limit));
  const page = Math.min(params.page ?? 1, pages);
  return { items: items.slice((page - 1) * limit, page * limit), page, limit, pages };
}

export function pageInfo(total: number, paged: { page: number; limit: number; pages: number }, sort: { sort: FleetSort; dir: SortDirection }): FleetPageInfo {
  return { page: paged.page, limit: paged.limit, pages: paged.pages, total, ...sort };
}
