import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  MAX_RUNTIMES,
  RUNTIMES_REFRESH_MS,
  createRuntimeReader,
  mappedPath,
  matchRuntimeLibrary,
  parseMapsRuntimes,
  readMapsRuntimes,
} from '../../../../agent/collectors/runtimes';
import { collectProcessInventory } from '../../../../agent/collectors/processes';
import { processInventorySchema, type RuntimeId } from '../../../../lib/protocol';
import { scratchTree, treeContext } from './inventory-trees';
import { fixture } from './two-readings';

const mapsFixture = (name: string) => fixture('process-maps', `${name}.maps`);
const readMaps = (name: string) => readFile(mapsFixture(name), 'utf8');
const line = (file: string, inode = 1234) => `7f3a00000000-7f3a00001000 r-xp 00000000 fe:00 ${inode}                     ${file}`;

describe('parseMapsRuntimes on captured and hand-made maps', () => {
  test('Debian 12 python3-numpy: OpenBLAS from libopenblas0-pthread, and nothing for the libblas.so.3 wrapper', async () => {
    expect(parseMapsRuntimes(await readMaps('debian12-python3-numpy-openblas-pthread'))).toEqual([
      { id: 'openblas-pthreads', library: 'libopenblasp-r0.3.21.so' },
    ]);
  });

  test('hand-made conda PyTorch: Intel OpenMP, MKL and PyTorch, each library once, in protocol order', async () => {
    expect(parseMapsRuntimes(await readMaps('handmade-libiomp5-libtorch'))).toEqual([
      { id: 'intel-openmp', library: 'libiomp5.so' },
      { id: 'mkl', library: 'libmkl_core.so.2' },
      { id: 'mkl', library: 'libmkl_intel_lp64.so.2' },
      { id: 'mkl', library: 'libmkl_intel_thread.so.2' },
      { id: 'pytorch', library: 'libc10.so' },
      { id: 'pytorch', library: 'libtorch.so' },
      { id: 'pytorch', library: 'libtorch_cpu.so' },
    ]);
  });

  test('hand-made ONNX Runtime: GNU OpenMP (deleted and wheel copies), and a pip numpy\'s OpenBLAS (numpy.libs/: pthreads)', async () => {
    expect(parseMapsRuntimes(await readMaps('handmade-libgomp-onnxruntime'))).toEqual([
      { id: 'gnu-openmp', library: 'libgomp-a34b3233.so.1.0.0' },
      { id: 'gnu-openmp', library: 'libgomp.so.1.0.0' },
      { id: 'openblas-pthreads', library: 'libopenblas64_p-r0-0cf96a72.3.23.dev.so' },
      { id: 'onnxruntime', library: 'libonnxruntime_providers_shared.so' },
      { id: 'onnxruntime', library: 'onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so' },
    ]);
  });

  test('Debian 12 python3-torch (captured): GNU OpenMP, the pthreads OpenBLAS told by its folder although libgomp is mapped, oneDNN, PyTorch', async () => {
    expect(parseMapsRuntimes(await readMaps('debian12-python3-torch-openblas-pthread'))).toEqual([
      { id: 'gnu-openmp', library: 'libgomp.so.1.0.0' },
      { id: 'openblas-pthreads', library: 'libopenblasp-r0.3.21.so' },
      { id: 'onednn', library: 'libdnnl.so.2.6' },
      { id: 'pytorch', library: 'libc10.so.1.13.0' },
      { id: 'pytorch', library: 'libtorch.so.1.13.0' },
      { id: 'pytorch', library: 'libtorch_cpu.so.1.13.0' },
    ]);
  });

  test('hand-made pip torch + numpy 2 + scipy: the wheel\'s renamed libgomp, the scipy-openblas builds as pthreads, PyTorch', async () => {
    expect(parseMapsRuntimes(await readMaps('handmade-pip-torch-numpy'))).toEqual([
      { id: 'gnu-openmp', library: 'libgomp-a34b3233.so.1' },
      { id: 'openblas-pthreads', library: 'libscipy_openblas-68440149.so' },
      { id: 'openblas-pthreads', library: 'libscipy_openblas64_-ff651d7f.so' },
      { id: 'pytorch', library: 'libc10.so' },
      { id: 'pytorch', library: 'libtorch.so' },
      { id: 'pytorch', library: 'libtorch_cpu.so' },
    ]);
  });

  test('the golden tree\'s sleep maps only libc: no runtimes', async () => {
    expect(parseMapsRuntimes(await readFile(fixture('golden', 'after', 'proc', '21151', 'maps'), 'utf8'))).toEqual([]);
  });

  test('keeps at most 32 entries', () => {
    const text = Array.from({ length: 40 }, (_, i) => line(`/opt/mkl/libmkl_part${String(i).padStart(2, '0')}.so.2`, i)).join('\n');
    const runtimes = parseMapsRuntimes(text);
    expect(runtimes).toHaveLength(MAX_RUNTIMES);
    expect(runtimes[0]).toEqual({ id: 'mkl', library: 'libmkl_part00.so.2' });
  });
});

describe('matchRuntimeLibrary: one rule per runtime, on the basename', () => {
  const cases: [RuntimeId | 'openblas-threaded', string[], string[]][] = [
    ['intel-openmp', ['libiomp5.so', 'libiomp5_db.so', 'libiomp5-4fc2dbb2.so'], ['libiompstubs5.so', 'libiomp5.a', 'libiomp.so']],
    ['gnu-openmp', ['libgomp.so.1', 'libgomp.so.1.0.0', 'libgomp-a34b3233.so.1'], ['libgomp.a', 'libgompx.so']],
    ['llvm-openmp', ['libomp.so', 'libomp.so.5', 'libomp-0c7d9a59.so'], ['libomptarget.so.14', 'libomp5.so', 'libompd.so']],
    ['openblas-openmp', ['libopenblaso-r0.3.21.so', 'libopenblas64o-r0.3.21.so'], []],
    ['openblas-threaded', ['libopenblasp-r0.3.21.so', 'libopenblas_haswellp-r0.3.21.so', 'libopenblas64_p-r0-0cf96a72.3.23.dev.so', 'libopenblasp-r0-2ecf47d5.3.13.dev.so'], []],
    ['openblas', ['libopenblas.so.0', 'libopenblas-r0.3.21.so', 'libopenblas_haswell-r0.3.21.so', 'libscipy_openblas64_-ff651d7f.so'], ['libblas.so.3', 'libopenblas.a']],
    ['mkl', ['libmkl_rt.so.2', 'libmkl_core.so.2', 'libmkl_gnu_thread.so.2', 'libmklml_intel.so'], ['libmkl.so', 'libmkldnn.so.0']],
    ['onednn', ['libdnnl.so.3', 'libdnnl.so.2.7', 'libmkldnn.so.0'], ['libdnnl.a']],
    ['tensorflow', ['libtensorflow_framework.so.2', 'libtensorflow_cc.so.2', 'libtensorflow.so.2', '_pywrap_tensorflow_internal.so'], ['libtensorflowlite.so', 'libtensorflowlite_jni.so']],
    ['pytorch', ['libtorch_cpu.so', 'libtorch.so', 'libc10.so', 'libc10_cuda.so'], ['libtorch_python.so', 'libtorchaudio.so', 'libc10d.a']],
    ['onnxruntime', ['libonnxruntime.so.1.17.0', 'libonnxruntime_providers_shared.so', 'onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so', 'onnxruntime_pybind11_state.so'], ['onnxruntime.py']],
    ['blis', ['libblis.so.4', 'libblis-mt.so.4'], ['libblisx.so']],
  ];

  test.each(cases)('%s', (id, matching, others) => {
    for (const basename of matching) expect(matchRuntimeLibrary(basename), basename).toBe(id);
    for (const basename of others) expect(matchRuntimeLibrary(basename), basename).not.toBe(id);
  });

  test('ordinary libraries and mapped data files are no runtime', () => {
    for (const basename of ['libc.so.6', 'libstdc++.so.6.0.30', 'libgfortran.so.5', 'liblapack.so.3', 'model.onnx', 'libtorch_cpu.so.bak']) {
      expect(matchRuntimeLibrary(basename), basename).toBeNull();
    }
  });
});

describe('OpenBLAS threading is named by what the library names can tell', () => {
  const openblasOf = (...files: string[]) => parseMapsRuntimes(files.map((f, i) => line(f, i)).join('\n')).find((r) => r.library.includes('openblas'))?.id;
  test('"p" (threaded) with no OpenMP runtime mapped is pthreads: an OpenMP build cannot run without one', () => {
    expect(openblasOf('/usr/lib/libopenblasp-r0.3.21.so', '/usr/lib/libc.so.6')).toBe('openblas-pthreads');
  });
  test('"p" beside an OpenMP runtime could be either build: unknown', () => {
    for (const omp of ['/usr/lib/libgomp.so.1', '/opt/libomp.so.5', '/opt/libiomp5.so']) expect(openblasOf('/usr/lib/libopenblasp-r0.3.21.so', omp)).toBe('openblas');
  });
  test('Debian\'s "o" build is OpenMP, with or without its runtime in the same maps', () => {
    expect(openblasOf('/usr/lib/openblas-openmp/libopenblaso-r0.3.21.so')).toBe('openblas-openmp');
  });
  test('a plain name says nothing about threading', () => {
    expect(openblasOf('/usr/lib/libopenblas.so.0')).toBe('openblas');
  });
  test('Debian\'s folders say the build whatever the name and whatever else is mapped; the serial build starts no pool', () => {
    expect(openblasOf('/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so', '/usr/lib/libgomp.so.1')).toBe('openblas-pthreads');
    expect(openblasOf('/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0', '/usr/lib/libgomp.so.1')).toBe('openblas-pthreads');
    expect(openblasOf('/usr/lib/aarch64-linux-gnu/openblas-openmp/libopenblas.so.0')).toBe('openblas-openmp');
    expect(openblasOf('/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas-r0.3.21.so')).toBeUndefined();
  });
  test('the builds numpy and scipy wheels bundle are pthreads, beside an OpenMP runtime too', () => {
    const gomp = '/srv/venv/lib/python3.11/site-packages/torch/lib/libgomp-a34b3233.so.1';
    expect(openblasOf('/srv/venv/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-0cf96a72.3.23.dev.so', gomp)).toBe('openblas-pthreads');
    expect(openblasOf('/srv/venv/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-ff651d7f.so', gomp)).toBe('openblas-pthreads');
    expect(openblasOf('/srv/venv/lib/python3.11/site-packages/scipy.libs/libscipy_openblas-68440149.so', gomp)).toBe('openblas-pthreads');
  });
  test('an OpenBLAS bundled elsewhere (an aarch64 torch wheel beside its libgomp) stays unknown', () => {
    expect(openblasOf('/srv/venv/lib/python3.11/site-packages/torch.libs/libopenblasp-r0-2ecf47d5.3.13.dev.so', '/srv/venv/lib/python3.11/site-packages/torch.libs/libgomp-a34b3233.so.1')).toBe('openblas');
  });
});

describe('mappedPath', () => {
  test('takes the path of a file mapping, with spaces, without " (deleted)"; none for anonymous and special mappings', () => {
    expect(mappedPath(line('/opt/models/resnet50 v1/model.pt'))).toBe('/opt/models/resnet50 v1/model.pt');
    expect(mappedPath(line('/usr/lib/libgomp.so.1 (deleted)'))).toBe('/usr/lib/libgomp.so.1');
    expect(mappedPath('7f3985684000-7f3985687000 rw-p 00000000 00:00 0 ')).toBeNull();
    expect(mappedPath('55ed1d0b5000-55ed1d0d6000 rw-p 00000000 00:00 0                          [heap]')).toBeNull();
  });
});

describe('readMapsRuntimes reads in chunks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'iw-maps-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // The timeout only guards a hang: writing and reading 4 MB is all this test waits for.
  test('gives what parseMapsRuntimes gives, for every fixture and for MBs of mappings with libraries across chunk ends', { timeout: 60_000 }, async () => {
    for (const name of ['debian12-python3-numpy-openblas-pthread', 'debian12-python3-torch-openblas-pthread', 'handmade-libiomp5-libtorch', 'handmade-libgomp-onnxruntime', 'handmade-pip-torch-numpy']) {
      expect(readMapsRuntimes(mapsFixture(name)), name).toEqual(parseMapsRuntimes(await readMaps(name)));
    }
    const anonymous = '7f3985684000-7f3985687000 rw-p 00000000 00:00 0 ';
    const libs = ['/opt/conda/lib/libiomp5.so', '/opt/torch/lib/libtorch_cpu.so', '/usr/lib/libgomp.so.1', '/opt/ort/libonnxruntime.so.1.17.0'];
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(i % 25_000 === 24_999 ? line(libs[(i + 1) / 25_000 - 1]!) : anonymous);
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(4_000_000);
    await writeFile(path.join(dir, 'maps'), text);
    expect(readMapsRuntimes(path.join(dir, 'maps'))).toEqual(parseMapsRuntimes(text));
    expect(parseMapsRuntimes(text).map((r) => r.id)).toEqual(['intel-openmp', 'gnu-openmp', 'pytorch', 'onnxruntime']);
  });

  test('a library line cut by the 64 KB chunk end, inside a two-byte character of its path, is still read whole', async () => {
    const libLine = line('/opt/modèle/libtorch_cpu.so');
    const cutAt = 64 * 1024;
    // Filler so the chunk ends right inside "è" (two bytes in UTF-8).
    const beforeCut = Buffer.byteLength(libLine.slice(0, libLine.indexOf('è'))) + 1;
    const fillerBytes = cutAt - beforeCut;
    const filler = `${'#'.repeat(fillerBytes - 1)}\n`;
    await writeFile(path.join(dir, 'maps'), `${filler}${libLine}\n`);
    expect(Buffer.byteLength(filler) + beforeCut).toBe(cutAt);
    expect(readMapsRuntimes(path.join(dir, 'maps'))).toEqual([{ id: 'pytorch', library: 'libtorch_cpu.so' }]);
  });
});

describe('createRuntimeReader', () => {
  let root: string;
  const mapsOf = (pid: number) => path.join(root, String(pid), 'maps');
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'iw-proc-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  async function writeMaps(pid: number, ...files: string[]) {
    await mkdir(path.join(root, String(pid)), { recursive: true });
    await writeFile(mapsOf(pid), files.map((f, i) => line(f, i)).join('\n'));
  }

  test('reads maps once per pid and start time, again after the refresh interval or for a new start time', async () => {
    const reader = createRuntimeReader();
    await writeMaps(10, '/usr/lib/libc.so.6');
    expect(reader.read(root, 10, 500, 1_000)).toEqual({ runtimes: [] });
    // The first inference dlopen()s a runtime: seen at the next refresh, not at every interval.
    await writeMaps(10, '/usr/lib/libc.so.6', '/usr/lib/libgomp.so.1');
    expect(reader.read(root, 10, 500, 1_000 + RUNTIMES_REFRESH_MS - 1)).toEqual({ runtimes: [] });
    expect(reader.read(root, 10, 500, 1_000 + RUNTIMES_REFRESH_MS)).toEqual({ runtimes: [{ id: 'gnu-openmp', library: 'libgomp.so.1' }] });
    // Same pid, another process (a new start time): read at once.
    await writeMaps(10, '/opt/libiomp5.so');
    expect(reader.read(root, 10, 999, 1_000 + RUNTIMES_REFRESH_MS)).toEqual({ runtimes: [{ id: 'intel-openmp', library: 'libiomp5.so' }] });
  });

  test('forgets processes it is no longer asked to keep', async () => {
    const reader = createRuntimeReader();
    await writeMaps(11, '/usr/lib/libc.so.6');
    expect(reader.read(root, 11, 7, 0)).toEqual({ runtimes: [] });
    await writeMaps(11, '/usr/lib/libgomp.so.1');
    reader.retain(new Set(['12@1']));
    expect(reader.read(root, 11, 7, 1)).toEqual({ runtimes: [{ id: 'gnu-openmp', library: 'libgomp.so.1' }] });
  });

  test('says why maps could not be read', async () => {
    const reader = createRuntimeReader();
    expect(reader.read(root, 12, 0, 0)).toEqual({ runtimesUnreadable: 'maps: not found' });
    await mkdir(path.join(root, '13', 'maps'), { recursive: true });
    expect(reader.read(root, 13, 0, 0)).toEqual({ runtimesUnreadable: expect.stringMatching(/^maps: EISDIR/) });
  });
});

describe('collectProcessInventory with maps', () => {
  test('reports the runtimes of a watched process, or why its maps could not be read', async () => {
    const tree = await scratchTree('inventory-cgroup-v1-handmade');
    try {
      const watched = [{ name: 'gunicorn', pid: 4242 }];
      await tree.remove('proc/4242/maps');
      const [unread] = await collectProcessInventory(treeContext(tree.root, watched));
      expect(unread).toMatchObject({ runtimesUnreadable: 'maps: not found' });
      expect(unread).not.toHaveProperty('runtimes');
      await tree.write('proc/4242/maps', await readMaps('handmade-libgomp-onnxruntime'));
      const [inventory] = await collectProcessInventory(treeContext(tree.root, watched));
      expect(inventory?.runtimes?.map((r) => r.id)).toEqual(['gnu-openmp', 'gnu-openmp', 'openblas-pthreads', 'onnxruntime', 'onnxruntime']);
      expect(inventory).not.toHaveProperty('runtimesUnreadable');
      expect(processInventorySchema.parse(inventory)).toEqual(inventory);
    } finally {
      await tree.cleanup();
    }
  });
});
