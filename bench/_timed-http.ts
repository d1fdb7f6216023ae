// Requests timed from the first byte sent to the last byte of the answer; anything but a 2xx answer is a failure.
import http from 'node:http';

const TIMEOUT_MS = 30_000;
const FAILURES_SHOWN = 5;

export interface Answer {
  status: number;
  text: string;
}

/** The durations of one kind of request and its failures, the first few of them shown as they happen. */
export class LatencyRecord {
  private readonly durationsMs: number[] = [];
  /** When each of those requests started (performance.now()). */
  private readonly startedAtMs: number[] = [];
  /** When each failed request started (performance.now()). */
  private readonly failedAtMs: number[] = [];
  /** How many failed for each reason, its numbers blanked (`HTTP 503 …`, `accepted 0, duplicate 1`). */
  readonly failureReasons = new Map<string, number>();

  constructor(private readonly name: string) {}

  get done(): number {
    return this.durationsMs.length + this.failedAtMs.length;
  }

  get failures(): number {
    return this.failedAtMs.length;
  }

  failuresWithin(fromMs: number, toMs: number): number {
    return this.failedAtMs.filter((at) => at >= fromMs && at < toMs).length;
  }

  /** Of the requests that started within [fromMs, toMs) (performance.now()), when given. */
  percentileMs(pct: number, fromMs = -Infinity, toMs = Infinity): number | null {
    const sorted = Float64Array.from(this.durationsMs.filter((_, i) => this.startedAtMs[i]! >= fromMs && this.startedAtMs[i]! < toMs)).sort();
    if (sorted.length === 0) return null;
    return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((pct / 100) * sorted.length) - 1)]! * 10) / 10;
  }

  private fail(startedAtMs: number, reason: string): void {
    this.failedAtMs.push(startedAtMs);
    const kind = reason.replace(/^[^:]*: /, '').replace(/\d+/g, 'N').slice(0, 160);
    this.failureReasons.set(kind, (this.failureReasons.get(kind) ?? 0) + 1);
    if (this.failures <= FAILURES_SHOWN) console.error(`[soak ${new Date().toISOString().slice(11, 19)}] ${this.name} failed: ${reason}`);
  }

  /** Runs `request`; a thrown error, a non-2xx answer or `check`'s complaint counts as a failure and gives null. */
  async time(what: string, request: () => Promise<Answer>, check: (answer: Answer) => string | null = () => null): Promise<Answer | null> {
    const started = performance.now();
    try {
      const answer = await request();
      const complaint = answer.status >= 200 && answer.status < 300 ? check(answer) : `HTTP ${answer.status} ${answer.text.slice(0, 200)}`;
      if (complaint) {
        this.fail(started, `${what}: ${complaint}`);
        return null;
      }
      this.durationsMs.push(performance.now() - started);
      this.startedAtMs.push(started);
      return answer;
    } catch (err) {
      this.fail(started, `${what}: ${(err as Error).message}`);
      return null;
    }
  }
}

/**
 * A POST on a connection of its own, as an agent's at a 10 s interval is: its keep-alive socket has been closed by
 * the server, idle for 5 s, before the next report (agent/transport/http-post.ts).
 */
export function postOnNewConnection(url: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent: false, timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET through fetch's keep-alive pool, as a browser tab polls; redirects (to the sign-in page) are answers too. */
export async function get(url: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, text: await res.text() };
}
