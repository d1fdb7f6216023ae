import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Report } from '../../lib/protocol';
import { silentLogger, type Logger } from '../log';
import { TEMP_PREFIX, syncDir, writeFileAtomic } from './atomic-file';

export interface SpooledReport {
  seq: number;
  /** The report's timestamp (epoch ms): whether the server's clock has reached it decides when it may go. */
  ts: number;
  /** The report as JSON text, exactly as it will go on the wire. */
  json: string;
}

export interface Spool {
  append(report: Report): Promise<void>;
  /** The oldest reports, at most maxReports and maxBytes of JSON (always at least one if any). */
  takeBatch(maxReports: number, maxBytes: number): Promise<SpooledReport[]>;
  ack(seqs: Iterable<number>): Promise<void>;
  readonly size: number;
  readonly count: number;
  readonly droppedCount: number;
  /** The highest seq on disk, or -1 when empty. */
  readonly maxSeq: number;
  has(seq: number): boolean;
}

const REPORT_FILE = /^r-(\d{16})\.json$/;
const STATE_FILE = 'state.json';
const MAX_RECENT_CHARS = 256 * 1024;

const fileName = (seq: number) => `r-${String(seq).padStart(16, '0')}.json`;

export async function openSpool(dir: string, maxBytes: number, log: Logger = silentLogger): Promise<Spool> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const sizes = new Map<number, number>();
  let removedTemps = 0;
  for (const name of await readdir(dir)) {
    if (name.startsWith(TEMP_PREFIX)) {
      await unlink(path.join(dir, name)).catch(() => {});
      removedTemps++;
      continue;
    }
    const match = REPORT_FILE.exec(name);
    if (match) sizes.set(Number(match[1]), (await stat(path.join(dir, name))).size);
  }
  if (removedTemps > 0) log.warn('removed half-written spool files left by a crash', { files: removedTemps });

  let droppedCount = await readDroppedCount(dir);
  let size = [...sizes.values()].reduce((a, b) => a + b, 0);
  const ordered = () => [...sizes.keys()].sort((a, b) => a - b);
  // The newest reports' JSON stays in memory too, so the usual send right after append() reads nothing back.
  const recent = new Map<number, string>();
  // Known for every report appended in this run; one written by an earlier run is read when its file is.
  const timestamps = new Map<number, number>();
  let recentBytes = 0;
  const forget = (seq: number) => {
    const json = recent.get(seq);
    if (json === undefined) return;
    recent.delete(seq);
    recentBytes -= json.length;
  };

  async function drop(seq: number) {
    const bytes = sizes.get(seq);
    if (bytes === undefined) return;
    sizes.delete(seq);
    timestamps.delete(seq);
    size -= bytes;
    forget(seq);
    await unlink(path.join(dir, fileName(seq))).catch(() => {});
  }

  return {
    async append(report) {
      const json = JSON.stringify(report);
      const bytes = Buffer.byteLength(json);
      let dropped = 0;
      for (const seq of ordered()) {
        if (size + bytes <= maxBytes) break;
        await drop(seq);
        dropped++;
      }
      if (dropped > 0) {
        droppedCount += dropped;
        await writeFileAtomic(path.join(dir, STATE_FILE), JSON.stringify({ droppedReports: droppedCount }));
        log.error('spool full: dropped the oldest unsent reports', { dropped, droppedTotal: droppedCount, maxBytes });
      }
      await writeFileAtomic(path.join(dir, fileName(report.seq)), json);
      sizes.set(report.seq, bytes);
      timestamps.set(report.seq, report.ts);
      size += bytes;
      forget(report.seq);
      recent.set(report.seq, json);
      recentBytes += json.length;
      for (const seq of recent.keys()) {
        if (recentBytes <= MAX_RECENT_CHARS) break;
        forget(seq);
      }
    },
    async takeBatch(maxReports, maxBytes) {
      const batch: SpooledReport[] = [];
      let bytes = 0;
      for (const seq of ordered()) {
        if (batch.length >= maxReports) break;
        const fileBytes = sizes.get(seq) ?? 0;
        if (batch.length > 0 && bytes + fileBytes > maxBytes) break;
        const cached = recent.get(seq);
        const ts = timestamps.get(seq);
        if (cached !== undefined && ts !== undefined) {
          batch.push({ seq, ts, json: cached });
          bytes += fileBytes;
          continue;
        }
        try {
          const json = await readFile(path.join(dir, fileName(seq)), 'utf8');
          batch.push({ seq, ts: ts ?? tsOf(json), json });
          bytes += fileBytes;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      return batch;
    },
    async ack(seqs) {
      let removed = 0;
      for (const seq of seqs) {
        if (!sizes.has(seq)) continue;
        await drop(seq);
        removed++;
      }
      if (removed > 0) await syncDir(dir);
    },
    get size() {
      return size;
    },
    get count() {
      return sizes.size;
    },
    get droppedCount() {
      return droppedCount;
    },
    get maxSeq() {
      let max = -1;
      for (const seq of sizes.keys()) max = Math.max(max, seq);
      return max;
    },
    has: (seq) => sizes.has(seq),
  };
}

/** A spooled report's ts; 0 for one that does not parse, which then goes out to be refused and dropped as invalid. */
function tsOf(json: string): number {
  try {
    const ts = (JSON.parse(json) as { ts?: unknown }).ts;
    return typeof ts === 'number' ? ts : 0;
  } catch {
    return 0;
  }
}

async function readDroppedCount(dir: string): Promise<number> {
  try {
    const state = JSON.parse(await readFile(path.join(dir, STATE_FILE), 'utf8')) as { droppedReports?: unknown };
    return typeof state.droppedReports === 'number' ? state.droppedReports : 0;
  } catch {
    return 0;
  }
}
