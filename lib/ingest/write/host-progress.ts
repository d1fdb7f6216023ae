import { pgArrayLiteral } from './pg-array';
import type { PlannedReport } from './plan';

export interface HostProgress {
  hostId: number;
  maxSeq: number;
  maxTsMs: number;
  /** When the server last stored a report of the host. */
  seenAtMs: number;
  /** The agent's configured interval from the newest report (by seq) that carried one; null when none did. */
  reportEveryMs: number | null;
  /** The agent's version from the newest report (by seq); null only for progress put together without reports. */
  agentVersion: string | null;
}

/** Per host, the newest of everything seen; merging the same progress twice changes nothing. */
export class HostProgressMap {
  private readonly byHost = new Map<number, HostProgress>();
  /** Per host, the configured interval last taken for a write. */
  private readonly takenReportEveryMs = new Map<number, number>();
  private newReportEvery = false;

  get size(): number {
    return this.byHost.size;
  }

  /**
   * Whether a host's configured interval differs from the one last taken for a write (a new host's first report, an
   * agent restarted with another --interval): silence is judged by it, so it should not wait for the next write.
   */
  get hasNewReportEvery(): boolean {
    return this.newReportEvery;
  }

  add(progress: HostProgress): void {
    const current = this.byHost.get(progress.hostId);
    if (progress.reportEveryMs !== null && this.takenReportEveryMs.get(progress.hostId) !== progress.reportEveryMs) this.newReportEvery = true;
    if (!current) this.byHost.set(progress.hostId, { ...progress });
    else {
      if (progress.reportEveryMs !== null && (current.reportEveryMs === null || progress.maxSeq >= current.maxSeq)) {
        current.reportEveryMs = progress.reportEveryMs;
      }
      if (progress.agentVersion !== null && (current.agentVersion === null || progress.maxSeq >= current.maxSeq)) {
        current.agentVersion = progress.agentVersion;
      }
      current.maxSeq = Math.max(current.maxSeq, progress.maxSeq);
      current.maxTsMs = Math.max(current.maxTsMs, progress.maxTsMs);
      current.seenAtMs = Math.max(current.seenAtMs, progress.seenAtMs);
    }
  }

  addStored(stored: readonly PlannedReport[], seenAtMs: number): void {
    for (const { hostId, report } of stored) {
      this.add({
        hostId,
        maxSeq: report.seq,
        maxTsMs: report.ts,
        seenAtMs,
        reportEveryMs: report.agent.reportEveryMs ?? null,
        agentVersion: report.agent.version,
      });
    }
  }

  /** Everything gathered, in host-id order (the order RECORD_HOST_PROGRESS_SQL locks rows in), and forgets it. */
  take(): HostProgress[] {
    const all = [...this.byHost.values()].sort((a, b) => a.hostId - b.hostId);
    this.byHost.clear();
    for (const p of all) if (p.reportEveryMs !== null) this.takenReportEveryMs.set(p.hostId, p.reportEveryMs);
    this.newReportEvery = false;
    return all;
  }
}

export function hostProgress(stored: readonly PlannedReport[], seenAtMs: number): HostProgress[] {
  const progress = new HostProgressMap();
  progress.addStored(stored, seenAtMs);
  return progress.take();
}

/**
 * The progress as six PostgreSQL array literals (ids, seqs, ts and seen time in epoch ms, configured intervals or
 * NULL, agent versions or NULL): it runs on the ingest event loop, which pg's own encoding of thousands of hosts' ISO timestamps would hold.
 */
export function hostUpdateParams(progress: readonly HostProgress[]): string[] {
  const literal = (pick: (p: HostProgress) => number | string | null) => pgArrayLiteral(progress.map(pick));
  return [
    literal((p) => p.hostId),
    literal((p) => p.maxSeq),
    literal((p) => p.maxTsMs),
    literal((p) => p.seenAtMs),
    literal((p) => p.reportEveryMs),
    literal((p) => p.agentVersion),
  ];
}
