import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { AgentBundleMissingError, checksumLine, readAgentBundle } from '@/lib/agent-delivery/bundle';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const get = (headers: Record<string, string> = {}) => new Request('http://iw.test/agent/inferwatch-agent.mjs', { headers });

test('an artefact is sent with its type, length and SHA-256 ETag, cacheable only with revalidation', async () => {
  const response = artefactResponse(get(), { body: 'echo hi\n', contentType: 'text/x-shellscript; charset=utf-8' });
  expect(response.status).toBe(200);
  expect(Object.fromEntries(response.headers)).toMatchObject({
    'content-type': 'text/x-shellscript; charset=utf-8',
    'content-length': '8',
    etag: `"${sha256('echo hi\n')}"`,
    'cache-control': 'public, no-cache',
  });
  expect(await response.text()).toBe('echo hi\n');
});

test.each([
  ['the same ETag', (etag: string) => etag],
  ['it among others', (etag: string) => `"other", ${etag}`],
  ['its weak form', (etag: string) => `W/${etag}`],
])('If-None-Match with %s is a 304 without a body', async (_name, header) => {
  const etag = `"${sha256('x')}"`;
  const response = artefactResponse(get({ 'If-None-Match': header(etag) }), { body: 'x', contentType: 'text/plain' });
  expect(response.status).toBe(304);
  expect(response.headers.get('etag')).toBe(etag);
  expect(await response.text()).toBe('');
});

test('another ETag gets the whole body', () => {
  expect(artefactResponse(get({ 'If-None-Match': '"stale"' }), { body: 'x', contentType: 'text/plain' }).status).toBe(200);
});

test('the bundle is read from dist/ with its SHA-256, hashed again when a build replaces it; missing, it is a 503 naming the build', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-bundle-read-'));
  await expect(readAgentBundle(root)).rejects.toThrow(AgentBundleMissingError);
  await expect(readAgentBundle(root)).rejects.toMatchObject({ status: 503, code: 'agent_bundle_missing', message: expect.stringContaining('run npm run build') });
  fs.mkdirSync(path.join(root, 'dist'));
  const file = path.join(root, 'dist', 'inferwatch-agent.mjs');
  fs.writeFileSync(file, 'first build');
  expect((await readAgentBundle(root)).sha256).toBe(sha256('first build'));
  fs.writeFileSync(`${file}.tmp`, 'second build');
  fs.renameSync(`${file}.tmp`, file);
  const second = await readAgentBundle(root);
  expect(second.sha256).toBe(sha256('second build'));
  expect(checksumLine(second)).toBe(`${sha256('second build')}  inferwatch-agent.mjs\n`);
  fs.rmSync(root, { recursive: true });
});
