import { scaleTime } from 'd3-scale';

// Not in time-axis.ts: the pages' own mappers import that one, and d3-scale belongs in the lazy chunk with Recharts.

/**
 * About `count` ticks on round times of the runtime's zone (the viewer's, in the browser) inside [fromMs, toMs]:
 * days at local midnight and hours on the local hour, across DST changes, as the labels are in that zone too.
 */
export function timeTicks(fromMs: number, toMs: number, count = 6): number[] {
  if (!(toMs > fromMs)) return [];
  return scaleTime()
    .domain([fromMs, toMs])
    .ticks(count)
    .map((tick) => tick.getTime());
}
