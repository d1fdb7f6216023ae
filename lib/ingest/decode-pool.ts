import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { decodeRequest, type DecodeInput, type DecodeOutput } from './decode-request';

interface Waiting {
  resolve(output: DecodeOutput): void;
  reject(err: unknown): void;
}

/**
 * decodeRequest on a worker thread, so gunzip, JSON.parse, validation and row encoding (≈ 60 % of the Node time of a
 * report) run beside the thread serving HTTP. Only for the TypeScript/Node listener: Next's bundle has no worker file.
 */
export class DecodeWorker {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor() {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'decode-worker.ts');
    // The worker runs this TypeScript source: register tsx inside it (workers do not inherit an --import'ed loader everywhere).
    const bootstrap = `import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(pathToFileURL(file).href)}))`;
    this.worker = new Worker(bootstrap, { eval: true, execArgv: process.execArgv.filter((a) => !a.startsWith('--cpu-prof')) });
    this.worker.unref();
    this.worker.on('message', ({ id, output }: { id: number; output: DecodeOutput }) => {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      if (!waiting) return;
      waiting.resolve(output);
    });
    this.worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    });
  }

  decode(input: DecodeInput): Promise<DecodeOutput> {
    const id = this.nextId++;
    const body = new Uint8Array(input.body);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, input: { ...input, body } }, [body.buffer]);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export interface Decoder {
  decode(input: DecodeInput): Promise<DecodeOutput>;
}

/** The same step on the calling thread (Next's route, embedded PGlite, tests). */
export const inlineDecoder: Decoder = { decode: async (input) => decodeRequest(input) };
