import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

const SCRIPT = path.join(process.cwd(), 'tests', 'support', 'scrape', 'model_server.py');

export interface Observation {
  metric: string;
  labels?: Record<string, string>;
  values: number[];
}

export interface ValueChange {
  metric: string;
  labels?: Record<string, string>;
  value: number;
}

export interface ModelServerCommand {
  observe?: Observation[];
  add?: ValueChange[];
  set?: ValueChange[];
  malformed?: boolean;
}

/** tests/support/scrape/model_server.py under Debian's python3 (with python3-prometheus-client), driven over stdin. */
export class ModelServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly lines: AsyncIterator<string>,
  ) {}

  static async start(servers: string[], port = 0): Promise<ModelServer> {
    const child = spawn('/usr/bin/python3', [SCRIPT, '--servers', servers.join(','), '--port', String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = await lines.next();
    const match = /^port (\d+)$/.exec(first.value ?? '');
    if (!match) throw new Error(`model_server.py did not start: ${first.value ?? 'no output'}`);
    return new ModelServer(child, Number(match[1]), lines);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/metrics`;
  }

  /** Applies a command; resolves once the server has applied it (its next exposition shows it). */
  async send(command: ModelServerCommand): Promise<void> {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
    const answer = await this.lines.next();
    if (!answer.value?.startsWith('ok ')) throw new Error(`model_server.py answered ${answer.value ?? 'nothing'}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
