export { ingestRequest, UnavailableBreaker, type IngestDeps, type IngestInput, type IngestOutput } from './ingest-request';
export { createIngestDeps, createWriter, ingestWithProcessDatabase, closeIngest } from './ingest-service';
export { handleIngestHttp, createIngestHttpHandler, readBodyLimited } from './http-handler';
export { reportToRows, appendReportRows, emptyRowBatch, type RowBatch } from './report-rows';
export { GroupCommitWriter } from './server-writer';
export { EmbeddedWriter } from './embedded-writer';
export { ingestLimitsFromEnv, type IngestLimits } from './limits';
export type { ReportWriter, WriteRequest, WriteResult } from './write-plan';
export { readWebBodyLimited } from './read-web-body';
