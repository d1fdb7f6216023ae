import { refreshMsFor, spanOf, type TimeRange } from '../host/time-range';

/** A relative range polls (sliding with now) while live; a pinned one is read once. */
export function pollingOf(range: TimeRange, live: boolean): number | false {
  return range.kind === 'relative' && live ? refreshMsFor(spanOf(range)) : false;
}
