import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { LatencyAggregator } from './aggregator';
import { parseStatsdPacket } from './statsd';

export interface StatsdListener {
  port: number;
  close(): Promise<void>;
}

export interface StatsdListenerOptions {
  host?: string;
  port?: number;
  aggregator: LatencyAggregator;
  /** Asked of the kernel, which caps it at net.core.rmem_max; a bigger buffer drops fewer packets in bursts. */
  recvBufferBytes?: number;
  onError?: (err: Error) => void;
}

/** Listens for StatsD/DogStatsD packets over UDP and feeds their timings to the aggregator. */
export function startStatsdListener({
  host = '127.0.0.1',
  port = 8125,
  aggregator,
  recvBufferBytes = 4 * 1024 * 1024,
  onError = () => {},
}: StatsdListenerOptions): Promise<StatsdListener> {
  const socket = dgram.createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', recvBufferSize: recvBufferBytes });
  socket.on('message', (packet) => {
    try {
      const { metrics, malformed } = parseStatsdPacket(packet.toString('utf8'));
      for (const timing of metrics) aggregator.record(timing);
      aggregator.recordMalformed(malformed);
    } catch (err) {
      aggregator.recordMalformed(1);
      onError(err instanceof Error ? err : new Error(String(err)));
    }
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      // A UDP socket's later errors (e.g. ICMP noise) must never crash the agent.
      socket.on('error', onError);
      resolve({
        port: socket.address().port,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
