// The ingest listener the benchmark measures: node:http → handleIngestHttp, the handler server.ts routes
// POST /api/v1/ingest to, without loading Next in the same process.
import http from 'node:http';
import { closeDb, getDb } from '../lib/db';
import { handleIngestHttp } from '../lib/ingest/http-handler';
import { closeIngest } from '../lib/ingest/ingest-service';

const port = Number(process.env.PORT ?? 3901);
await getDb();
const server = http.createServer((req, res) => {
  if (req.url === '/api/v1/ingest') void handleIngestHttp(req, res);
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
