import { MAX_REPORT_FUTURE_MS } from '../../lib/protocol/time';
import type { Logger } from '../log';

/** Held back this much before the server's limit too: the Date header counts whole seconds, and a request takes time. */
const HOLD_MARGIN_MS = 10_000;
/** Below this the Date header's resolution and network delays blur the difference; above it the operator is told. */
const NOTABLE_SKEW_MS = 60_000;
/** This host's clock moved this much against the monotonic one since the last answer: it was set, the offset is stale. */
const CLOCK_STEP_MS = 5_000;

/**
 * This host's clock against the server's, as the Date header of the server's last answer shows it. Ingest refuses a
 * report stamped more than MAX_REPORT_FUTURE_MS ahead of the server's clock; the sender asks refuses() so that on a host
 * whose clock runs that far ahead it keeps such reports in the spool until the server's clock reaches them.
 */
export interface ServerClock {
  /** Takes the Date header of an answer that arrived just now. */
  observe(dateHeader: string | null): void;
  /** Whether the server, by its clock as last seen, would refuse a report stamped `tsMs` as too far in the future. */
  refuses(tsMs: number): boolean;
  /** How far this host's clock is ahead of the server's (negative: behind); undefined before the first answer. */
  readonly aheadMs: number | undefined;
}

export function createServerClock(log: Logger, wallMs: () => number = Date.now, monoMs: () => number = () => performance.now()): ServerClock {
  let offsetMs: number | undefined;
  let observedWallMinusMonoMs = 0;
  let toldAheadMs = 0;
  // Once the clock is set right (chrony stepping it back), reports stamped after that must not wait on the old offset.
  const currentOffsetMs = () => {
    if (offsetMs !== undefined && Math.abs(wallMs() - monoMs() - observedWallMinusMonoMs) > CLOCK_STEP_MS) offsetMs = undefined;
    return offsetMs;
  };
  return {
    observe(dateHeader) {
      const serverMs = dateHeader === null ? NaN : Date.parse(dateHeader);
      if (Number.isNaN(serverMs)) return;
      offsetMs = serverMs - wallMs();
      observedWallMinusMonoMs = wallMs() - monoMs();
      const aheadMs = -offsetMs;
      if (Math.abs(aheadMs - toldAheadMs) < NOTABLE_SKEW_MS) return;
      if (Math.abs(aheadMs) < NOTABLE_SKEW_MS) {
        log.info("this host's clock agrees with the server's again", { clockAheadS: Math.round(aheadMs / 1000) });
        toldAheadMs = 0;
        return;
      }
      log.warn(
        `this host's clock is ${aheadMs > 0 ? 'ahead of' : 'behind'} the server's: reports carry this host's time, and ` +
          'the server refuses those more than 5 minutes ahead of its own; set the clock right (chrony, systemd-timesyncd)',
        { clockAheadS: Math.round(aheadMs / 1000) },
      );
      toldAheadMs = aheadMs;
    },
    refuses(tsMs) {
      const offset = currentOffsetMs();
      return offset !== undefined && tsMs > wallMs() + offset + MAX_REPORT_FUTURE_MS - HOLD_MARGIN_MS;
    },
    get aheadMs() {
      const offset = currentOffsetMs();
      return offset === undefined ? undefined : -offset;
    },
  };
}
