import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';

// Debian's docker-compose (1.29) checks the file against the Compose schema and resolves it; `config` needs no daemon.
const repoRoot = path.resolve(import.meta.dirname, '../..');
const composeFile = path.join(repoRoot, 'deploy/compose.yaml');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'iw-compose-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function composeConfig(file: string, args: string[] = [], env: Record<string, string> = {}) {
  const result = spawnSync('docker-compose', ['-f', file, ...args, 'config'], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('deploy/compose.yaml', () => {
  test('is a valid Compose file: server waits for a healthy PostgreSQL on a named volume, with DATABASE_URL pointing at it', () => {
    const out = composeConfig(composeFile);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const config = parse(out.stdout);
    expect(Object.keys(config.services).sort()).toEqual(['agent', 'postgres', 'server']);
    const { agent, postgres, server } = config.services;
    // The agent starts only with `--profile agent`; without a key it would have nothing to enroll with.
    expect(agent.profiles).toEqual(['agent']);
    expect(postgres.profiles).toBeUndefined();
    expect(server.profiles).toBeUndefined();
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data:rw']);
    expect(Object.keys(config.volumes)).toContain('postgres-data');
    expect(postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(server.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(server.environment.DATABASE_URL).toBe('postgres://inferwatch:inferwatch@postgres:5432/inferwatch');
    expect(server.build).toEqual({ context: repoRoot, dockerfile: 'deploy/server.Containerfile' });
    expect(server.read_only).toBe(true);
    expect(server.cap_drop).toEqual(['ALL']);
    // The health check asks the app's own health route.
    expect(server.healthcheck.test.join(' ')).toContain('/api/health');
  });

  test('the agent profile adds the agent with the host\'s pid namespace and its /proc and /sys read-only at /host', () => {
    const out = composeConfig(composeFile, ['--profile', 'agent'], { INFERWATCH_ENROLL_KEY: 'iwk_compose', INFERWATCH_HOSTNAME: 'gpu-box-1', POSTGRES_PASSWORD: 's3cret' });
    expect(out.status).toBe(0);
    const { agent, server } = parse(out.stdout).services;
    expect(agent.pid).toBe('host');
    expect(agent.volumes).toEqual(expect.arrayContaining(['/proc:/host/proc:ro', '/sys:/host/sys:ro']));
    expect(agent.command).toEqual(expect.arrayContaining(['--proc-root=/host/proc', '--sys-root=/host/sys']));
    expect(agent.environment).toEqual({ INFERWATCH_ENROLL_KEY: 'iwk_compose', INFERWATCH_HOSTNAME: 'gpu-box-1' });
    expect(agent.read_only).toBe(true);
    expect(server.environment.DATABASE_URL).toBe('postgres://inferwatch:s3cret@postgres:5432/inferwatch');
  });

  test('docker-compose rejects what the Compose schema does not allow, so the checks above are the tool\'s', () => {
    const broken = path.join(path.dirname(composeFile), `.broken-${process.pid}.yaml`);
    try {
      writeFileSync(broken, readFileSync(composeFile, 'utf8').replace('    read_only: true\n', '    read_only: true\n    readonly_rootfs: true\n'));
      const out = composeConfig(broken);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain('readonly_rootfs');
    } finally {
      rmSync(broken, { force: true });
    }
  });
});
