// The reference for ingest's latency: a bare node:http server, run with `npm start`'s node flags, that reads each
// report and answers as ingest does when it stores one, without storing anything.
import { spawn } from 'node:child_process';
import { startCommand } from './_compiled-server';

const SOURCE = `
const server = require('node:http').createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end('{"accepted":1,"duplicate":0,"acknowledgedSeqs":[]}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

export async function startBareIngestServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const start = startCommand();
  const child = spawn(process.execPath, [...start.flags, '-e', SOURCE], { env: { ...process.env, ...start.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the bare node:http server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
