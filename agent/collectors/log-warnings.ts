import { open, stat } from 'node:fs/promises';
import type { LogWarning } from '../../lib/protocol';
import { boundedText } from './values';

export type { LogWarning };

/** Known runtime warnings that point at a CPU-feature or threading misconfiguration, most specific first. */
export const KNOWN_WARNINGS: readonly { id: string; pattern: RegExp }[] = [
  // TF < 2.4: "Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA";
  // TF >= 2.4: "To enable the following instructions: AVX2 AVX512F FMA, in other operations, rebuild TensorFlow ...".
  { id: 'tf-cpu-instructions', pattern: /TensorFlow binary was not compiled to use|To enable the following instructions:.*rebuild TensorFlow|TensorFlow library wasn't compiled to use/ },
  { id: 'mkl-warning', pattern: /Intel (?:MKL|oneMKL) WARNING/ },
  { id: 'nnpack-unsupported-hardware', pattern: /Could not initialize NNPACK! Reason: Unsupported hardware/ },
  { id: 'onednn-isa', pattern: /(?:onednn|dnnl)_verbose,(?:[^,]*,){0,3}info,cpu,isa:/ },
  { id: 'omp-team-size', pattern: /OMP: Warning #96: Cannot form a team with \d+ threads/ },
  { id: 'omp-affinity', pattern: /OMP: Warning #\d+: .*(?:affinity|AFFINITY|OS proc)/ },
  { id: 'kmp-affinity-verbose', pattern: /OMP: Info #\d+: KMP_AFFINITY:/ },
  { id: 'omp-warning', pattern: /OMP: Warning #\d+/ },
  { id: 'libgomp-warning', pattern: /libgomp: (?:Thread creation failed|Invalid value for environment variable|Affinity not supported)/ },
  { id: 'openblas-openmp-loop', pattern: /OpenBLAS Warning : Detect OpenMP Loop/ },
  { id: 'openblas-too-many-threads', pattern: /OpenBLAS.*(?:too many threads|blas_thread_init: pthread_create failed)/ },
  { id: 'torch-set-threads-late', pattern: /Cannot set number of intraop threads after parallel work has started/ },
  { id: 'ort-thread-affinity', pattern: /pthread_setaffinity_np failed/ },
  { id: 'sched-setaffinity-failed', pattern: /sched_setaffinity.*(?:fail|error|invalid argument)|(?:fail|error).*sched_setaffinity|failed to set pid \d+'s affinity/i },
];

export const MAX_LINE_CHARS = 1000;
export const INITIAL_SCAN_BYTES = 1024 * 1024;
const MAX_READ_BYTES_PER_POLL = 8 * 1024 * 1024;
const MAX_PARTIAL_LINE_BYTES = 64 * 1024;
const MAX_WARNINGS_PER_FILE = 50;

export function matchWarning(line: string): LogWarning | null {
  const known = KNOWN_WARNINGS.find(({ pattern }) => pattern.test(line));
  return known ? { id: known.id, line: boundedText(line, MAX_LINE_CHARS) } : null;
}

interface FileState {
  ino: number;
  offset: number;
  partial: string;
  warnings: Map<string, LogWarning>;
}

export interface LogWatcher {
  /** Reads what was appended since the last poll (the last ~1 MB on the first poll). */
  poll(): Promise<void>;
  /** Every distinct warning seen so far, each id once per file. */
  warnings(): LogWarning[];
  warningsFor(file: string): LogWarning[];
}

/**
 * Tails each file. A new inode (rotation) or a file shorter than the read offset (truncation) restarts at the
 * beginning; a file that does not exist yet is read from its start once it appears.
 */
export function createLogWatcher(files: string[]): LogWatcher {
  const states = new Map<string, FileState>();
  const warnings = new Map<string, Map<string, LogWarning>>(files.map((file) => [file, new Map()]));

  async function pollFile(file: string): Promise<void> {
    let info;
    try {
      info = await stat(file);
    } catch {
      if (!states.has(file)) states.set(file, { ino: -1, offset: 0, partial: '', warnings: warnings.get(file)! });
      return;
    }
    let state = states.get(file);
    if (state === undefined) {
      const start = Math.max(0, info.size - INITIAL_SCAN_BYTES);
      state = { ino: info.ino, offset: start, partial: '', warnings: warnings.get(file)! };
      states.set(file, state);
      await readFrom(file, state, info.size, start > 0);
      return;
    }
    if (info.ino !== state.ino || info.size < state.offset) {
      state.ino = info.ino;
      state.offset = 0;
      state.partial = '';
    }
    if (info.size > state.offset) await readFrom(file, state, info.size, false);
  }

  async function readFrom(file: string, state: FileState, size: number, skipFirstLine: boolean): Promise<void> {
    const length = Math.min(size - state.offset, MAX_READ_BYTES_PER_POLL);
    if (length <= 0) return;
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, state.offset);
      state.offset += bytesRead;
      const lines = (state.partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
      state.partial = lines.pop() ?? '';
      if (state.partial.length > MAX_PARTIAL_LINE_BYTES) state.partial = '';
      if (skipFirstLine) lines.shift();
      for (const line of lines) record(state, line);
    } finally {
      await handle.close();
    }
  }

  function record(state: FileState, line: string): void {
    const warning = matchWarning(line);
    if (warning && !state.warnings.has(warning.id) && state.warnings.size < MAX_WARNINGS_PER_FILE) {
      state.warnings.set(warning.id, warning);
    }
  }

  return {
    async poll() {
      await Promise.all(files.map((file) => pollFile(file).catch(() => undefined)));
    },
    warnings() {
      return [...warnings.values()].flatMap((perFile) => [...perFile.values()]);
    },
    warningsFor(file) {
      return [...(warnings.get(file)?.values() ?? [])];
    },
  };
}
