import { execFile, type ExecFileException } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { AGENT_VERSION } from '../../agent/version';

// `inferwatch-agent --upgrade` run as an operator runs it, from the installed bundle, against a real HTTP server that
// serves a bundle and its SHA-256 the way the inferwatch server does.
const repoRoot = path.resolve(import.meta.dirname, '../..');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let work: string;
let realBundle: Buffer;
let served: { bundle: Buffer; checksum: string };
let server: http.Server;
let serverUrl: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-upgrade-'));
  const outfile = path.join(work, 'built.mjs');
  await build({ entryPoints: [path.join(repoRoot, 'agent/cli.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', minify: true, outfile, logLevel: 'silent' });
  realBundle = fs.readFileSync(outfile);
  server = http.createServer((req, res) => {
    if (req.url === '/agent/inferwatch-agent.mjs') return void res.end(served.bundle);
    if (req.url === '/agent/inferwatch-agent.mjs.sha256') return void res.end(served.checksum);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(() => {
  server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

let installed: string;
beforeEach(() => {
  const dir = fs.mkdtempSync(path.join(work, 'host-'));
  installed = path.join(dir, 'inferwatch-agent.mjs');
  fs.writeFileSync(installed, realBundle, { mode: 0o755 });
});

const serve = (bundle: Buffer, checksum = `${sha256(bundle)}  inferwatch-agent.mjs\n`) => {
  served = { bundle, checksum };
};

function runInstalled(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '' } as unknown as NodeJS.ProcessEnv;
    execFile(process.execPath, [installed, ...args], { env, encoding: 'utf8' }, (err: ExecFileException | null, stdout: string, stderr: string) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const filesBeside = () => fs.readdirSync(path.dirname(installed)).sort();

test('a newer bundle from the server is checked, swapped in, runs, and the previous one is kept beside it', async () => {
  const newer = Buffer.concat([realBundle, Buffer.from('\n// the next build\n')]);
  serve(newer);
  const result = await runInstalled(['--upgrade', '--server', serverUrl]);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`upgraded ${fs.realpathSync(installed)} from ${AGENT_VERSION} to ${AGENT_VERSION}`);
  expect(sha256(fs.readFileSync(installed))).toBe(sha256(newer));
  expect(sha256(fs.readFileSync(`${installed}.previous`))).toBe(sha256(realBundle));
  expect(fs.statSync(installed).mode & 0o777).toBe(0o755);
  expect(filesBeside()).toEqual(['inferwatch-agent.mjs', 'inferwatch-agent.mjs.previous']);
});

test('the server\'s bundle already installed: nothing changes', async () => {
  serve(realBundle);
  const result = await runInstalled(['--upgrade', '--server', serverUrl]);
  expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining(`is already the server's agent (${AGENT_VERSION})`) });
  expect(filesBeside()).toEqual(['inferwatch-agent.mjs']);
});

test('a broken bundle (a truncated build) that matches its checksum is rolled back: the previous agent is back and runs', async () => {
  serve(realBundle.subarray(0, Math.floor(realBundle.length / 2)));
  const result = await runInstalled(['--upgrade', '--server', serverUrl]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/upgrade failed: the server's agent was installed but it does not start: SyntaxError: .*; put back the previous agent \(\d+\.\d+\.\d+/);
  expect(sha256(fs.readFileSync(installed))).toBe(sha256(realBundle));
  expect(fs.statSync(installed).mode & 0o777).toBe(0o755);
  expect((await runInstalled(['--version'])).stdout.trim()).toBe(AGENT_VERSION);
});

test('a bundle whose SHA-256 is not the published one is refused before anything is touched', async () => {
  serve(Buffer.concat([realBundle, Buffer.from('\n// changed on the way\n')]), `${sha256(realBundle)}  inferwatch-agent.mjs\n`);
  const result = await runInstalled(['--upgrade', '--server', serverUrl]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/upgrade failed: the downloaded agent's SHA-256 is [0-9a-f]{64} but http:\/\/127\.0\.0\.1:\d+ publishes [0-9a-f]{64}: kept the installed one/);
  expect(filesBeside()).toEqual(['inferwatch-agent.mjs']);
  expect(sha256(fs.readFileSync(installed))).toBe(sha256(realBundle));
});

test('a server that publishes no checksum, or cannot be reached, or no server at all, is a clear error', async () => {
  serve(realBundle, 'not found\n');
  expect((await runInstalled(['--upgrade', '--server', serverUrl])).stderr).toContain(`${serverUrl} published no SHA-256 for its agent: kept the installed one`);
  const unreachable = await runInstalled(['--upgrade', '--server', 'http://127.0.0.1:9']);
  expect(unreachable).toMatchObject({ code: 1, stderr: expect.stringContaining('could not download http://127.0.0.1:9/agent/inferwatch-agent.mjs') });
  const noServer = await runInstalled(['--upgrade']);
  expect(noServer).toMatchObject({ code: 2, stderr: expect.stringContaining('missing --server: --upgrade downloads the agent from the server') });
  expect(filesBeside()).toEqual(['inferwatch-agent.mjs']);
});
