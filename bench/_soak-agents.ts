// The simulated fleet: each agent sends one gzip report per interval, the fleet's reports spread evenly over the
// interval (host k at k × interval ÷ N), each on a connection of its own, whatever the answers before it took.
import { gzipSync } from 'node:zlib';
import { ingestResponseSchema } from '../lib/protocol';
import { postOnNewConnection, type Answer, type LatencyRecord } from './_timed-http';
import { nextReportJson, type SimulatedAgent } from './_soak-setup';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stored exactly once: a 2xx that stored nothing (a replay, a refused report) is a failure too. */
function storedOnce(answer: Answer): string | null {
  const parsed = ingestResponseSchema.safeParse(JSON.parse(answer.text));
  if (!parsed.success) return `unexpected answer ${answer.text.slice(0, 200)}`;
  return parsed.data.accepted === 1 ? null : `accepted ${parsed.data.accepted}, duplicate ${parsed.data.duplicate}`;
}

function sendReport(ingestUrl: string, agent: SimulatedAgent, record: LatencyRecord): Promise<unknown> {
  const body = gzipSync(nextReportJson(agent, Date.now()));
  const headers = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' };
  return record.time(`report of host ${agent.hostId}`, () => postOnNewConnection(ingestUrl, headers, body), storedOnce);
}

/** Sends the fleet's reports for `durationMs`, then waits for the last answers. */
export async function runAgents(serverUrl: string, agents: SimulatedAgent[], intervalMs: number, durationMs: number, record: LatencyRecord): Promise<void> {
  const ingestUrl = `${serverUrl}/api/v1/ingest`;
  const spacingMs = intervalMs / agents.length;
  const inFlight = new Set<Promise<unknown>>();
  const started = performance.now();
  for (let k = 0; ; ) {
    const elapsedMs = performance.now() - started;
    if (elapsedMs >= durationMs) break;
    for (; k * spacingMs <= elapsedMs; k++) {
      const sent = sendReport(ingestUrl, agents[k % agents.length]!, record);
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
    }
    await sleep(k * spacingMs - elapsedMs);
  }
  await Promise.all(inFlight);
}
