// The ingest listener the benchmark measures: node:http → handleIngestHttp, the handler server.ts routes
// POST /api/v1/ingest to, without loading Next in the same process. GET /stats answers what held the event loop
// since the last call (its delay, and V8's GC pauses), so each measured window can say where its tail came from.
import http from 'node:http';
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { closeDb, getDb } from '../lib/db';
import { handleIngestHttp } from '../lib/ingest/http-handler';
import { closeIngest } from '../lib/ingest/ingest-service';

const port = Number(process.env.PORT ?? 3901);

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const emptyGc = () => ({ scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0, maxMs: 0 });
let gc = emptyGc();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gc.scavenges++;
      gc.scavengeMs += entry.duration;
    } else {
      gc.majors++;
      gc.majorMs += entry.duration;
    }
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

function takeStats() {
  const ms = (ns: number) => Number((ns / 1e6).toFixed(1));
  const stats = {
    loopDelayP50Ms: ms(loopDelay.percentile(50)),
    loopDelayP99Ms: ms(loopDelay.percentile(99)),
    loopDelayMaxMs: ms(loopDelay.max),
    gc: Object.fromEntries(Object.entries(gc).map(([k, v]) => [k, Number(v.toFixed(1))])),
  };
  loopDelay.reset();
  gc = emptyGc();
  return stats;
}

await getDb();
const server = http.createServer((req, res) => {
  if (req.url === '/api/v1/ingest') void handleIngestHttp(req, res);
  else if (req.method === 'GET' && req.url === '/stats') res.end(JSON.stringify(takeStats()));
  else {
    res.statusCode = 404;
    res.end();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`ready ${port}`));

process.on('SIGTERM', async () => {
  server.close();
  server.closeAllConnections();
  await closeIngest();
  await closeDb();
  process.exit(0);
});
