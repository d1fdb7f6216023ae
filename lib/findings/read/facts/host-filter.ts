/** `AND <column> = ANY($n)` when the read is for some hosts only. */
export const filterHosts = (hostIds: readonly number[] | undefined, column: string, param: number) =>
  hostIds ? `AND ${column} = ANY($${param}::int4[])` : '';

// Series tables are keyed (host_id, ts): a window is read host by host through that key. A time filter alone
// would scan the whole of the day's partition, which at the end of a day holds every report of every host.
export const hostSource = (hostIds: readonly number[] | undefined, param: number) =>
  hostIds ? `unnest($${param}::int4[]) AS h(id)` : 'hosts h';

/** The parameters of a window read: the window, then the hosts when there are some. */
export const windowParams = (from: Date, to: Date, hostIds: readonly number[] | undefined, ...more: unknown[]) =>
  hostIds ? [from, to, ...more, hostIds] : [from, to, ...more];
