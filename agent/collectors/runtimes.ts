import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { RUNTIME_IDS, type LoadedRuntime, type RuntimeId } from '../../lib/protocol';
import { unavailableFrom } from './read';

/** A shared object's basename: "libgomp.so.1", "libopenblasp-r0.3.21.so", wheel copies such as "libgomp-a34b3233.so.1". */
const SHARED_OBJECT = /\.so(?:\.[0-9][\w.]*)?$/;

/**
 * How each runtime is recognised from the basename of a mapped shared object. OpenBLAS's name says its threading
 * only in Debian's builds ("o" OpenMP, "p" pthreads) and upstream's "p" (threaded); see openblasBuild().
 */
const RUNTIME_RULES: readonly [RuntimeId | 'openblas-threaded', RegExp][] = [
  ['intel-openmp', /^libiomp5(?:_db)?[-.]/],
  ['gnu-openmp', /^libgomp[-.]/],
  // LLVM's libomp (Debian's package libomp5 installs libomp.so.5); its libgomp/libiomp5 aliases are symlinks to it.
  ['llvm-openmp', /^libomp[-.]/],
  ['openblas-openmp', /^libopenblas(?:64_?)?o-r/],
  ['openblas-threaded', /^libopenblas(?:64)?(?:_[a-z0-9]+)?_?p-r/],
  ['openblas', /^lib(?:scipy_)?openblas/],
  ['mkl', /^libmkl(?:ml)?_/],
  ['onednn', /^lib(?:dnnl|mkldnn)[-._]/],
  ['tensorflow', /^(?:libtensorflow(?:_framework|_cc)?\.so|_pywrap_tensorflow_internal\.)/],
  ['pytorch', /^(?:libtorch(?:_cpu)?\.so|libc10(?:_\w+)?\.so)/],
  ['onnxruntime', /^(?:libonnxruntime[-._]|onnxruntime_pybind11_state\.)/],
  ['blis', /^libblis[-.]/],
];

type Match = RuntimeId | 'openblas-threaded';

const OPENMP_RUNTIMES: readonly RuntimeId[] = ['intel-openmp', 'gnu-openmp', 'llvm-openmp'];
export const MAX_RUNTIMES = 32;
const MAX_LIBRARY_LENGTH = 200;

/** The runtime a library basename belongs to, before OpenBLAS's threading is settled; null for any other file. */
export function matchRuntimeLibrary(basename: string): Match | null {
  if (!SHARED_OBJECT.test(basename)) return null;
  return RUNTIME_RULES.find(([, pattern]) => pattern.test(basename))?.[0] ?? null;
}

/**
 * Where an OpenBLAS build says its threading by its place rather than its name: Debian installs each build in a
 * folder of its own (openblas-pthread/, openblas-openmp/, openblas-serial/), and the builds numpy and scipy wheels
 * bundle (numpy.libs/, scipy.libs/, the scipy-openblas wheels' libscipy_openblas*) are pthreads builds. 'serial'
 * starts no threads, so it is no runtime to judge; null when the place says nothing.
 */
export function openblasBuild(file: string): 'openblas-pthreads' | 'openblas-openmp' | 'serial' | null {
  const folder = path.posix.basename(path.posix.dirname(file));
  if (folder === 'openblas-pthread') return 'openblas-pthreads';
  if (folder === 'openblas-openmp') return 'openblas-openmp';
  if (folder === 'openblas-serial') return 'serial';
  if (folder === 'numpy.libs' || folder === 'scipy.libs' || path.posix.basename(file).startsWith('libscipy_openblas')) return 'openblas-pthreads';
  return null;
}

/** The runtime a mapped file belongs to, its place settling an OpenBLAS build's threading where its name cannot. */
export function matchRuntimeFile(file: string): Match | null {
  const id = matchRuntimeLibrary(path.posix.basename(file));
  if (id !== 'openblas' && id !== 'openblas-threaded') return id;
  const build = openblasBuild(file);
  if (build === 'serial') return null;
  return build ?? id;
}

/**
 * A threaded OpenBLAS ("p") whose place said nothing runs on pthreads unless it was built for OpenMP, and an OpenMP
 * build cannot run without an OpenMP runtime mapped beside it: with none mapped it is pthreads; with one, unknown.
 */
function openblasThreading(ids: ReadonlySet<Match>): RuntimeId {
  return OPENMP_RUNTIMES.some((id) => ids.has(id)) ? 'openblas' : 'openblas-pthreads';
}

/** The path of a /proc/<pid>/maps line ("addr perms offset dev inode   path"), or null for anonymous mappings. */
export function mappedPath(line: string): string | null {
  const match = /^\S+\s+\S+\s+\S+\s+\S+\s+\d+\s+(\/.*)$/.exec(line);
  if (!match) return null;
  const file = match[1]!;
  return file.endsWith(' (deleted)') ? file.slice(0, -' (deleted)'.length) : file;
}

export interface RuntimeCollector {
  addLine(line: string): void;
  runtimes(): LoadedRuntime[];
}

/** Collects the runtimes of a maps file fed line by line, so a large one never has to be held whole. */
export function createRuntimeCollector(): RuntimeCollector {
  const libraries = new Map<string, Match>();
  return {
    addLine(line) {
      // Most lines of a big process are anonymous or map the same few files again: skip them before any regex.
      if (!line.includes('.so')) return;
      const file = mappedPath(line);
      if (file === null) return;
      const basename = path.posix.basename(file);
      if (libraries.has(basename) || basename.length > MAX_LIBRARY_LENGTH || libraries.size >= 4 * MAX_RUNTIMES) return;
      const id = matchRuntimeFile(file);
      if (id !== null) libraries.set(basename, id);
    },
    runtimes() {
      const ids = new Set(libraries.values());
      const order = (id: RuntimeId) => RUNTIME_IDS.indexOf(id);
      return [...libraries]
        .map(([library, id]) => ({ id: id === 'openblas-threaded' ? openblasThreading(ids) : id, library }))
        .sort((a, b) => order(a.id) - order(b.id) || (a.library < b.library ? -1 : a.library > b.library ? 1 : 0))
        .slice(0, MAX_RUNTIMES);
    },
  };
}

/** The threading and ML runtimes a process has mapped, from the text of its /proc/<pid>/maps. */
export function parseMapsRuntimes(text: string): LoadedRuntime[] {
  const collector = createRuntimeCollector();
  for (const line of text.split('\n')) collector.addLine(line);
  return collector.runtimes();
}

const CHUNK_BYTES = 64 * 1024;

/** Reads a maps file in chunks, line by line: memory stays at one chunk whatever the file's size. */
export function readMapsRuntimes(file: string): LoadedRuntime[] {
  const collector = createRuntimeCollector();
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let partial = '';
    for (let bytes = readSync(fd, buffer); bytes > 0; bytes = readSync(fd, buffer)) {
      const lines = (partial + decoder.write(buffer.subarray(0, bytes))).split('\n');
      partial = lines.pop() ?? '';
      // No maps line is this long (paths stop at 4096 bytes): a partial line beyond it is not one.
      if (partial.length > CHUNK_BYTES) partial = '';
      for (const line of lines) collector.addLine(line);
    }
    collector.addLine(partial + decoder.end());
  } finally {
    closeSync(fd);
  }
  return collector.runtimes();
}

export type RuntimesResult = { runtimes: LoadedRuntime[] } | { runtimesUnreadable: string };

export interface RuntimeReader {
  /** The runtimes of one process, read at most once per `refreshMs` for the same pid and start time. */
  read(procRoot: string, pid: number, startTicks: number, nowMs: number): RuntimesResult;
  /** Forgets every process not in `keep` (keys from `key()`), so the cache holds only watched processes. */
  retain(keep: ReadonlySet<string>): void;
}

/** Libraries are dlopen'ed at a model's first inference, so maps is read again now and then, not once. */
export const RUNTIMES_REFRESH_MS = 60_000;

export const runtimesKey = (pid: number, startTicks: number) => `${pid}@${startTicks}`;

export function createRuntimeReader(refreshMs: number = RUNTIMES_REFRESH_MS): RuntimeReader {
  const cache = new Map<string, { atMs: number; result: RuntimesResult }>();
  return {
    read(procRoot, pid, startTicks, nowMs) {
      const key = runtimesKey(pid, startTicks);
      const cached = cache.get(key);
      if (cached && nowMs - cached.atMs < refreshMs) return cached.result;
      let result: RuntimesResult;
      try {
        result = { runtimes: readMapsRuntimes(path.join(procRoot, String(pid), 'maps')) };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException)?.code;
        result = { runtimesUnreadable: code === 'ENOENT' ? 'maps: not found' : unavailableFrom(err, 'maps').unavailable };
      }
      cache.set(key, { atMs: nowMs, result });
      return result;
    },
    retain(keep) {
      for (const key of cache.keys()) if (!keep.has(key)) cache.delete(key);
    },
  };
}
