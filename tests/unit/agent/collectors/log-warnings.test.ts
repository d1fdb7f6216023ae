import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { INITIAL_SCAN_BYTES, createLogWatcher, matchWarning } from '../../../../agent/collectors/log-warnings';
import { logWarningSchema } from '../../../../lib/protocol';

describe('matchWarning', () => {
  test.each([
    ['tf-cpu-instructions', '2019-03-01 10:22:31.547912: I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA'],
    ['tf-cpu-instructions', 'To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.'],
    ['mkl-warning', 'Intel MKL WARNING: Support of Intel(R) Streaming SIMD Extensions 4.2 (Intel(R) SSE4.2) enabled only processors has been deprecated. Intel oneAPI Math Kernel Library 2025.0 will require Intel(R) Advanced Vector Extensions (Intel(R) AVX) instructions.'],
    ['nnpack-unsupported-hardware', '[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware.'],
    ['onednn-isa', 'onednn_verbose,info,cpu,isa:Intel AVX2'],
    ['onednn-isa', 'onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with Intel DL Boost'],
    ['omp-team-size', 'OMP: Warning #96: Cannot form a team with 48 threads, using 2 instead.'],
    ['omp-affinity', 'OMP: Warning #181: OMP_PROC_BIND: ignored because KMP_AFFINITY has been defined'],
    ['omp-affinity', 'OMP: Warning #123: Ignoring invalid OS proc ID 3.'],
    ['kmp-affinity-verbose', 'OMP: Info #255: KMP_AFFINITY: pid 4242 tid 4250 thread 1 bound to OS proc set 1'],
    ['omp-warning', 'OMP: Warning #190: Forking a process while a parallel region is active is potentially unsafe.'],
    ['libgomp-warning', 'libgomp: Thread creation failed: Resource temporarily unavailable'],
    ['openblas-openmp-loop', 'OpenBLAS Warning : Detect OpenMP Loop and this application may hang. Please rebuild the library with USE_OPENMP=1 option.'],
    ['openblas-too-many-threads', 'OpenBLAS blas_thread_init: pthread_create failed for thread 12 of 64: Resource temporarily unavailable'],
    ['torch-set-threads-late', '[W ParallelNative.cpp:230] Warning: Cannot set number of intraop threads after parallel work has started or after set_num_threads call when using native parallel backend (function set_num_threads)'],
    ['ort-thread-affinity', '2023-09-11 08:11:20.011 python[12:12] [E:onnxruntime:Default, env.cc:254 ThreadMain] pthread_setaffinity_np failed for thread: 1390, index: 1, mask: {2, }, error code: 22 error msg: Invalid argument. Specify the number of threads explicitly so the affinity is not set.'],
    ['sched-setaffinity-failed', 'sched_setaffinity: Invalid argument'],
    ['sched-setaffinity-failed', "taskset: failed to set pid 4242's affinity: Invalid argument"],
  ])('%s: %s', (id, line) => {
    expect(matchWarning(line)).toEqual({ id, line });
  });

  test.each([
    '2023-10-09 12:01:01.512: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders.',
    'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
    'OMP_NUM_THREADS=4 set by the launcher',
  ])('ignores ordinary lines: %s', (line) => {
    expect(matchWarning(line)).toBeNull();
  });

  test('truncates a matched line to 1000 characters', () => {
    const warning = matchWarning(`OMP: Warning #96: Cannot form a team with 48 threads ${'x'.repeat(5000)}`);
    expect(warning?.line).toHaveLength(1000);
    expect(logWarningSchema.parse(warning)).toEqual(warning);
  });
});

describe('createLogWatcher', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'inferwatch-logs-'));
    file = path.join(dir, 'server.log');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const TEAM = 'OMP: Warning #96: Cannot form a team with 8 threads, using 2 instead.';
  const TF = 'I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA';
  const ORT = 'pthread_setaffinity_np failed for thread: 7, index: 1, mask: {2, }, error code: 22 error msg: Invalid argument.';

  test('first poll scans only the last ~1 MB, later polls see appended lines, each warning once per file', async () => {
    const filler = `${'request served in 12 ms '.repeat(4)}\n`.repeat(Math.ceil((INITIAL_SCAN_BYTES * 1.5) / 100));
    await writeFile(file, `${TEAM}\n${filler}${TF}\n`);
    const watcher = createLogWatcher([file]);
    await watcher.poll();
    expect(watcher.warnings()).toEqual([{ id: 'tf-cpu-instructions', line: TF }]);

    await appendFile(file, `${TEAM}\n${TF}\n${TEAM}\n`);
    await watcher.poll();
    expect(watcher.warnings().map((w) => w.id)).toEqual(['tf-cpu-instructions', 'omp-team-size']);
    expect(watcher.warningsFor(file)).toHaveLength(2);
  });

  test('a line written in two parts is matched once complete', async () => {
    await writeFile(file, '');
    const watcher = createLogWatcher([file]);
    await watcher.poll();
    await appendFile(file, 'pthread_setaffinity_np failed for thread: 7, ');
    await watcher.poll();
    expect(watcher.warnings()).toEqual([]);
    await appendFile(file, 'index: 1, mask: {2, }, error code: 22 error msg: Invalid argument.\n');
    await watcher.poll();
    expect(watcher.warnings()).toEqual([{ id: 'ort-thread-affinity', line: ORT }]);
  });

  test('follows rotation (new inode) and truncation from the start of the new content', async () => {
    await writeFile(file, 'starting\n');
    const watcher = createLogWatcher([file]);
    await watcher.poll();
    await rename(file, `${file}.1`);
    await writeFile(file, `${TEAM}\n`);
    await watcher.poll();
    expect(watcher.warnings().map((w) => w.id)).toEqual(['omp-team-size']);

    await appendFile(file, 'lots of ordinary output to move the offset well past the next write\n');
    await watcher.poll();
    await truncate(file, 0);
    await appendFile(file, `${ORT}\n`);
    await watcher.poll();
    expect(watcher.warnings().map((w) => w.id)).toEqual(['omp-team-size', 'ort-thread-affinity']);
  });

  test('a log that does not exist yet is read from its start once it appears; other files keep working', async () => {
    const other = path.join(dir, 'other.log');
    await writeFile(other, `${TF}\n`);
    const watcher = createLogWatcher([file, other]);
    await watcher.poll();
    expect(watcher.warningsFor(file)).toEqual([]);
    await writeFile(file, `${TEAM}\n`);
    await watcher.poll();
    expect(watcher.warningsFor(file)).toEqual([{ id: 'omp-team-size', line: TEAM }]);
    expect(watcher.warningsFor(other)).toEqual([{ id: 'tf-cpu-instructions', line: TF }]);
  });
});
