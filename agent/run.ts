import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EnrollRequest, Report } from '../lib/protocol';
import { systemClock, type Clock } from './clock';
import { createReportSources, type ReportSourcesHandle } from './collectors';
import { ConfigError, readEnrollKey, type AgentConfig } from './config';
import type { Logger } from './log';
import { createReportBuilder, type ReportSources } from './report-builder';
import { DEFAULT_BACKOFF, backoffDelayMs, type BackoffSettings } from './transport/backoff';
import { EnrollError, enroll, readHostToken, readMachineId, readStateMachineId, readTokenForOrigin, type HostToken } from './transport/enroll';
import { createSender } from './transport/sender';
import { openSeqStore, type SeqStore } from './transport/seq-store';
import { openSpool, type Spool } from './transport/spool';
import { AGENT_VERSION } from './version';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_CONFIG = 2;

const ONCE_DELIVERY_TIMEOUT_MS = 60_000;
/** Baseline readings this long before the first report, so that report already carries rates. */
export const DEFAULT_WARMUP_MS = 250;

export interface RunOptions {
  config: AgentConfig;
  log: Logger;
  signal: AbortSignal;
  /** Where --print writes; stdout by default. */
  print?: (text: string) => void;
  /** Test seams. */
  sources?: ReportSources;
  backoff?: BackoffSettings;
  clock?: Clock;
  warmupMs?: number;
}

interface Delivery {
  spool: Spool;
  seqs: SeqStore;
  token: HostToken;
}

/** Runs the agent until `signal` aborts (or after one report with --once); resolves to the exit code. */
export async function runAgent(opts: RunOptions): Promise<number> {
  const { config, log, signal } = opts;
  const clock = opts.clock ?? systemClock;
  const warmupMs = opts.warmupMs ?? DEFAULT_WARMUP_MS;
  const print = opts.print ?? ((text: string) => process.stdout.write(text));
  const host = { hostname: config.hostname ?? os.hostname(), machineId: await readMachineId() };

  let delivery: Delivery | undefined;
  if (config.server) {
    const prepared = await prepareDelivery(config, config.server, host, opts);
    if (typeof prepared === 'number') return prepared;
    delivery = prepared;
  }

  const handle: ReportSourcesHandle = opts.sources
    ? { sources: opts.sources, close: async () => {} }
    : await createReportSources(config, log, { listen: !config.once });
  // A one-off run (cron, a check by hand) has no next report to expect.
  const reportEveryMs = config.once ? undefined : config.intervalMs;
  const builder = createReportBuilder({ sources: handle.sources, host, version: AGENT_VERSION, log, reportEveryMs, clock });
  const senderAbort = new AbortController();
  const sender =
    delivery &&
    createSender({
      server: config.server!,
      getToken: () => Promise.resolve(readHostToken(config.stateDir, config.server!)?.token ?? delivery!.token.token),
      reenroll: enrollingAgain(config, config.server!, host, delivery, log),
      spool: delivery.spool,
      log,
      backoff: backoffOf(config, opts),
      sleep: clock.sleep,
      wallMs: clock.wallMs,
      monoMs: clock.monoMs,
    });

  log.info('agent started', {
    version: AGENT_VERSION,
    server: config.server,
    intervalMs: config.intervalMs,
    stateDir: delivery ? config.stateDir : null,
    hostId: delivery?.token.hostId,
    nextSeq: delivery?.seqs.nextSeq,
    spooled: delivery?.spool.count,
  });

  let memorySeq = 0;
  const startMono = clock.monoMs();
  const roots = { procRoot: config.procRoot, sysRoot: config.sysRoot };
  // The monoMs last handed to the collectors: every rate covers the time from there to the next collection.
  let prevMono: number | undefined;
  const collect = async (): Promise<Report> => {
    if (prevMono === undefined) {
      prevMono = clock.monoMs();
      await builder.warmUp({ monoMs: prevMono, ...roots });
      await clock.sleep(warmupMs, signal);
    }
    const monoMs = clock.monoMs();
    const report = await builder.build({
      seq: delivery ? delivery.seqs.nextSeq : memorySeq,
      tsMs: clock.wallMs(),
      monoMs,
      intervalMs: Math.max(1, Math.round(monoMs - prevMono)),
      ...roots,
      droppedReports: delivery?.spool.droppedCount ?? 0,
      spoolBytes: delivery?.spool.size ?? 0,
    });
    prevMono = monoMs;
    return report;
  };

  const store = async (report: Report) => {
    if (config.print) print(`${JSON.stringify(report, null, 2)}\n`);
    if (!delivery) {
      memorySeq++;
      return;
    }
    await delivery.spool.append(report);
    await delivery.seqs.commit(report.seq);
    sender!.wake();
  };

  try {
    if (config.once) {
      const report = await collect();
      await store(report);
      if (!delivery) return EXIT_OK;
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(ONCE_DELIVERY_TIMEOUT_MS)]);
      await sender!.run(deadline, () => !delivery!.spool.has(report.seq));
      if (delivery.spool.has(report.seq)) {
        log.error('report not acknowledged in time; it stays in the spool for the next run', { seq: report.seq });
        return EXIT_FAILED;
      }
      log.info('report acknowledged', { seq: report.seq });
      return EXIT_OK;
    }

    const senderDone = sender?.run(AbortSignal.any([signal, senderAbort.signal]));
    for (let tick = 0; !signal.aborted; ) {
      try {
        await store(await collect());
      } catch (err) {
        log.error('could not produce or spool a report', { error: (err as Error).message });
      }
      // Ticks sit on a fixed grid from the start, so a slow collection never shifts the ones after it.
      const elapsed = clock.monoMs() - startMono;
      const next = Math.max(tick + 1, Math.ceil(elapsed / config.intervalMs));
      if (next > tick + 1) log.warn('collection overran the interval; skipping ticks', { skipped: next - tick - 1 });
      tick = next;
      await clock.sleep(startMono + tick * config.intervalMs - clock.monoMs(), signal);
    }
    senderAbort.abort();
    await senderDone;
    log.info('agent stopped', { spooled: delivery?.spool.count });
    return EXIT_OK;
  } finally {
    senderAbort.abort();
    await handle.close();
  }
}

function backoffOf(config: AgentConfig, opts: RunOptions): BackoffSettings {
  if (opts.backoff) return opts.backoff;
  return { initialMs: Math.min(DEFAULT_BACKOFF.initialMs, config.retryMaxMs), maxMs: config.retryMaxMs };
}

async function prepareDelivery(
  config: AgentConfig,
  server: string,
  host: Report['host'],
  opts: RunOptions,
): Promise<Delivery | number> {
  const { log, signal } = opts;
  await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  const spool = await openSpool(path.join(config.stateDir, 'spool'), config.spoolMaxBytes, log);
  const seqs = await openSeqStore(config.stateDir, spool.maxSeq + 1);
  const existing = readHostToken(config.stateDir, server);
  if (existing) return { spool, seqs, token: existing };

  // The key is read only now, with no token to use: once enrolled, its file may be deleted.
  let enrollKey: string | null;
  try {
    enrollKey = readEnrollKey(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log.error(err.message, { server });
    return EXIT_CONFIG;
  }
  if (!enrollKey) {
    log.error('no host token for this server in the state dir: enroll once with --enroll-key or --enroll-key-file', {
      server,
      stateDir: config.stateDir,
    });
    return EXIT_CONFIG;
  }
  const request = await enrollRequest(config, server, host);
  const backoff = backoffOf(config, opts);
  for (let attempt = 1; !signal.aborted; attempt++) {
    try {
      const enrolled = await enroll({ server, stateDir: config.stateDir, enrollKey, request });
      await seqs.raiseTo(enrolled.nextSeq);
      log.info('enrolled', { server, hostId: enrolled.hostId, nextSeq: seqs.nextSeq });
      return { spool, seqs, token: enrolled };
    } catch (err) {
      if (!(err instanceof EnrollError) || !err.retryable) {
        log.error((err as Error).message, { server });
        return EXIT_FAILED;
      }
      const delayMs = backoffDelayMs(attempt, backoff);
      log.warn(err.message, { server, attempt, delayMs });
      await (opts.clock ?? systemClock).sleep(delayMs, signal);
    }
  }
  return EXIT_OK;
}

/**
 * What proves this is the host it enrolled as before: its machine-id (else one kept in the state dir, so a retried
 * enrollment whose answer was lost still proves itself), and a token it holds for the same server under another URL.
 */
async function enrollRequest(config: AgentConfig, server: string, host: Report['host']): Promise<EnrollRequest> {
  const tokenProof = (token: HostToken | null) => (token ? { hostToken: token.token } : {});
  return {
    ...host,
    machineId: host.machineId ?? (await readStateMachineId(config.stateDir)),
    ...tokenProof(readTokenForOrigin(config.stateDir, server)),
  };
}

/**
 * The server has no record of this host's token — its database is new or was restored (the local agent of a server
 * moved to PostgreSQL meets this first). With an enrollment key the agent enrolls again, as on its first start; the
 * server still refuses a host it cannot prove is the same machine, and never lets a revoked one back in. Says so once,
 * and each different failure once.
 */
function enrollingAgain(config: AgentConfig, server: string, host: Report['host'], delivery: Delivery, log: Logger): () => Promise<boolean> {
  let lastFailure: string | null = null;
  const failed = (message: string) => {
    if (message !== lastFailure) log.error(message, { server });
    lastFailure = message;
    return false;
  };
  return async () => {
    let enrollKey: string | null;
    try {
      enrollKey = readEnrollKey(config);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return failed(err.message);
    }
    if (!enrollKey) return false;
    if (lastFailure === null) {
      log.warn('the server has no record of this host token (a new or restored database?); enrolling again with the enrollment key', { server });
    }
    try {
      const enrolled = await enroll({ server, stateDir: config.stateDir, enrollKey, request: await enrollRequest(config, server, host) });
      await delivery.seqs.raiseTo(enrolled.nextSeq);
      delivery.token = enrolled;
      lastFailure = null;
      log.info('enrolled again', { server, hostId: enrolled.hostId, nextSeq: delivery.seqs.nextSeq, spooled: delivery.spool.count });
      return true;
    } catch (err) {
      return failed((err as Error).message);
    }
  };
}
