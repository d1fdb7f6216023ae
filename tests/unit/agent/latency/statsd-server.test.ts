import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { quantileOfWire } from '../../../../lib/sketch';
import { createLatencyAggregator, type LatencyAggregator } from '../../../../agent/latency/aggregator';
import { startStatsdListener, type StatsdListener } from '../../../../agent/latency/statsd-server';
import { seededRandom } from '../../sketch/random';

// Debian's python3-statsd is installed for the system interpreter, not for pyenv shims on PATH.
const PYTHON = '/usr/bin/python3';

let aggregator: LatencyAggregator;
let listener: StatsdListener;
let client: dgram.Socket;
let recordedNames: string[];

beforeEach(async () => {
  aggregator = createLatencyAggregator();
  recordedNames = [];
  const record = aggregator.record;
  aggregator.record = (timing) => {
    recordedNames.push(timing.name);
    return record(timing);
  };
  listener = await startStatsdListener({ port: 0, aggregator });
  client = dgram.createSocket('udp4');
});

afterEach(async () => {
  client.close();
  await listener.close();
});

/** Sends one datagram and yields once, so the listener in this same process reads it before the buffer fills. */
async function send(packet: string | Buffer): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    client.send(packet, listener.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
  );
  await new Promise((resolve) => setImmediate(resolve));
}

/** Polls until the listener has handled what was sent, however long a busy machine takes; the test timeout guards a hang. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

describe('startStatsdListener', { timeout: 60_000 }, () => {
  test('port 0 binds a free port on loopback', () => {
    expect(listener.port).toBeGreaterThan(0);
  });

  test('timings sent over UDP arrive in the drained sketch with the right count and quantiles', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    for (let i = 0; i < values.length; i += 50) {
      await send(values.slice(i, i + 50).map((v) => `predict:${v}|ms|#route:/predict`).join('\n'));
    }
    await send('predict:7|ms|@0.1|#route:/predict\nbroken line\nhits:1|c');
    await waitFor(() => aggregator.malformedCount() > 0);
    const malformed = aggregator.malformedCount();
    const [series] = aggregator.drain();
    expect(malformed).toBe(1);
    expect(series!.tags).toEqual({ route: '/predict' });
    expect(series!.sketch.count).toBe(1010);
    expect(series!.sketch.max).toBe(1000);
    const p99 = quantileOfWire(series!.sketch, 0.99)!;
    expect(Math.abs(p99 - 990) / 990).toBeLessThan(0.01);
  });

  test('random datagrams never crash the listener and it keeps serving afterwards', async () => {
    const random = seededRandom(42);
    for (let i = 0; i < 300; i++) {
      const bytes = Buffer.alloc(1 + Math.floor(random() * 1400));
      for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
      await send(bytes);
    }
    await send('after.fuzz:3|ms');
    await waitFor(() => recordedNames.includes('after.fuzz'));
    expect(aggregator.malformedCount()).toBeGreaterThan(250);
    expect(aggregator.drain().find((s) => s.name === 'after.fuzz')?.sketch.count).toBe(1);
  });

  test('a packet from the python3-statsd client (Debian package) is parsed', async () => {
    expect(existsSync(PYTHON), `${PYTHON} is missing`).toBe(true);
    const script = [
      'import sys',
      'try:',
      '    import statsd',
      'except ImportError:',
      '    sys.exit("python3-statsd is not installed: apt-get install -y python3-statsd")',
      `c = statsd.StatsClient("127.0.0.1", ${listener.port}, prefix="inference")`,
      'c.timing("predict", 12.5)',
      'with c.pipeline() as p:',
      '    p.timing("predict", 20)',
      '    p.timing("predict", 30)',
      '    p.incr("requests")',
    ].join('\n');
    await promisify(execFile)(PYTHON, ['-c', script]).catch((err: { stderr?: string }) => {
      throw new Error(`python3 statsd client failed: ${err.stderr ?? String(err)}`);
    });
    await waitFor(() => recordedNames.length === 3);
    const series = aggregator.drain();
    expect(series.map((s) => s.name)).toEqual(['inference.predict']);
    expect(series[0]!.sketch.count).toBe(3);
    expect(series[0]!.sketch.min).toBe(12.5);
    expect(series[0]!.sketch.sum).toBe(62.5);
  });

  test('binding a port that is taken rejects instead of crashing', async () => {
    await expect(startStatsdListener({ port: listener.port, aggregator })).rejects.toThrow(/EADDRINUSE/);
  });
});
