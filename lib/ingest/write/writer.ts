import type { Report } from '../../protocol';

/** What planning, the ledger, the hosts' progress and the inventory snapshots read of a report. */
export type ReportKey = Pick<Report, 'seq' | 'ts' | 'inventory'> & { agent: Pick<Report['agent'], 'reportEveryMs' | 'version'> };

/** A host's reports to store: validated reports, or (inside the server writer) their encoded form. */
export interface WriteRequest<R extends ReportKey = Report> {
  hostId: number;
  reports: readonly R[];
}

export interface WriteResult {
  acceptedSeqs: number[];
  duplicateSeqs: number[];
}

export interface ReportWriter {
  write(request: WriteRequest): Promise<WriteResult>;
  close(): Promise<void>;
}
