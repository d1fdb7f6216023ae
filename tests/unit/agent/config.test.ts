import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, readEnrollKey, type AgentConfig } from '../../../agent/config';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'iw-config-'));

function configOf(argv: string[], env: Record<string, string | undefined> = {}, isRoot = false): AgentConfig {
  const action = loadConfig({ argv, env, isRoot, homeDir: '/home/op' });
  if (action.kind !== 'run') throw new Error(`expected run, got ${action.kind}`);
  return action.config;
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('loadConfig', () => {
  test('refuses plain http:// to another machine (key, token and reports would be readable) unless allowed; loopback is fine', () => {
    expect(() => configOf(['--server', 'http://iw.example:3000'])).toThrow(/plain http:\/\/ to another machine.*--allow-plain-http/);
    expect(configOf(['--server', 'http://iw.example:3000', '--allow-plain-http']).server).toBe('http://iw.example:3000');
    expect(configOf(['--server', 'http://127.0.0.1:3000']).server).toBe('http://127.0.0.1:3000');
    expect(configOf(['--server', 'http://localhost:3000']).server).toBe('http://localhost:3000');
    expect(configOf(['--server', 'https://iw.example']).server).toBe('https://iw.example');
  });

  test('applies defaults: 10 s interval, statsd 8125, http intake 8126, 100 MB spool, 60 s retry cap, /proc and /sys', () => {
    const config = configOf(['--server', 'https://srv:3000/']);
    expect(config).toMatchObject({
      server: 'https://srv:3000',
      intervalMs: 10_000,
      statsdAddr: { host: '127.0.0.1', port: 8125 },
      httpIntakeAddr: { host: '127.0.0.1', port: 8126 },
      spoolMaxBytes: 100 * 1024 * 1024,
      retryMaxMs: 60_000,
      procRoot: '/proc',
      sysRoot: '/sys',
      once: false,
      print: false,
      enrollKey: null,
    });
  });

  test('defaults the state dir to /var/lib as root and to ~/.local/state otherwise', () => {
    expect(configOf(['--print'], {}, true).stateDir).toBe('/var/lib/inferwatch-agent');
    expect(configOf(['--print'], {}, false).stateDir).toBe('/home/op/.local/state/inferwatch-agent');
  });

  test('takes --hostname (or INFERWATCH_HOSTNAME, as a DaemonSet passes spec.nodeName) as a DNS name, and refuses anything else', () => {
    expect(configOf(['--print']).hostname).toBeNull();
    expect(configOf(['--print', '--hostname', 'gpu-node-7.oslo.example']).hostname).toBe('gpu-node-7.oslo.example');
    expect(configOf(['--print'], { INFERWATCH_HOSTNAME: 'ip-10-0-3-17.eu-north-1.compute.internal' }).hostname).toBe('ip-10-0-3-17.eu-north-1.compute.internal');
    expect(() => configOf(['--print', '--hostname', 'node 7'])).toThrow(/invalid --hostname: must be a DNS host name/);
    expect(() => configOf(['--print', '--hostname=-node'])).toThrow(/invalid --hostname/);
    expect(() => configOf(['--print', '--hostname', `${'a'.repeat(64)}.example`])).toThrow(/invalid --hostname/);
    expect(() => configOf(['--print'], { INFERWATCH_HOSTNAME: 'a'.repeat(250) + '.example' })).toThrow(/invalid INFERWATCH_HOSTNAME \(--hostname\): must be at most 253/);
  });

  test('merges file < env < flags', () => {
    const file = writeJson('merge.json', { server: 'https://file', interval: 30, stateDir: '/f', watchProcess: ['a', 'b'], spoolMaxMb: 5 });
    const env = { INFERWATCH_SERVER: 'https://env', INFERWATCH_INTERVAL: '20', INFERWATCH_WATCH_PROCESS: 'c, d' };
    const config = configOf(['--config', file, '--interval', '2'], env);
    expect(config.server).toBe('https://env');
    expect(config.intervalMs).toBe(2000);
    expect(config.stateDir).toBe('/f');
    expect(config.watchProcesses).toEqual(['c', 'd']);
    expect(config.spoolMaxBytes).toBe(5 * 1024 * 1024);
  });

  test('takes the retry cap in seconds, fractions included, and refuses none or more than an hour', () => {
    expect(configOf(['--server', 'https://srv', '--retry-max', '0.5']).retryMaxMs).toBe(500);
    expect(configOf(['--server', 'https://srv'], { INFERWATCH_RETRY_MAX: '300' }).retryMaxMs).toBe(300_000);
    expect(() => configOf(['--server', 'https://srv', '--retry-max', '0'])).toThrow(/--retry-max: must be greater than 0/);
    expect(() => configOf(['--server', 'https://srv', '--retry-max', '3601'])).toThrow(/--retry-max: must be at most 3600/);
  });

  test('collects repeatable flags and parses probes and pids', () => {
    const config = configOf([
      '--print',
      '--watch-process', 'python3',
      '--watch-process', 'triton',
      '--watch-pid', '42',
      '--probe', 'oslo=https://oslo.example/health',
      '--probe', 'fra=http://fra.example:8080/',
      '--statsd-addr', 'off',
      '--http-intake-addr', '[::1]:9000',
    ]);
    expect(config.watchProcesses).toEqual(['python3', 'triton']);
    expect(configOf(['--print', '--watch-process', 'container:9c1b2d3e', '--watch-process', 'server.py@pod:3f2a1b4c']).watchProcesses).toEqual([
      'container:9c1b2d3e',
      'server.py@pod:3f2a1b4c',
    ]);
    expect(config.watchPids).toEqual([42]);
    expect(config.probes.map((p) => [p.name, p.protocol, p.host, p.port])).toEqual([
      ['oslo', 'https', 'oslo.example', 443],
      ['fra', 'http', 'fra.example', 8080],
    ]);
    expect(config.statsdAddr).toBeNull();
    expect(config.httpIntakeAddr).toEqual({ host: '::1', port: 9000 });
  });

  test('reads the enroll key from --enroll-key-file only when asked (to enroll), trimmed', () => {
    const file = writeJson('key', 'ek_secret\n');
    const config = configOf(['--print', '--enroll-key-file', file]);
    expect(config).toMatchObject({ enrollKey: null, enrollKeyFile: file });
    expect(readEnrollKey(config)).toBe('ek_secret');
    expect(readEnrollKey(configOf(['--print', '--enroll-key', 'ek_flag']))).toBe('ek_flag');
    // A missing file is no error until the agent must enroll: an enrolled agent never reads it.
    const missing = configOf(['--print', '--enroll-key-file', '/nonexistent/key']);
    expect(() => readEnrollKey(missing)).toThrow(/invalid --enroll-key-file \/nonexistent\/key: ENOENT/);
  });

  test('reads scrape targets from repeated flags or the comma-separated env var, with limits and extra histograms', () => {
    const fromFlags = configOf(['--print', '--scrape', 'vllm=http://127.0.0.1:8000/metrics', '--scrape', 'triton=http://localhost:8002/metrics', '--scrape-histogram', 'app_infer_ms', '--scrape-histogram', 'app_infer@us']);
    expect(fromFlags.scrape.targets.map((t) => [t.name, t.url.href])).toEqual([
      ['vllm', 'http://127.0.0.1:8000/metrics'],
      ['triton', 'http://localhost:8002/metrics'],
    ]);
    expect(fromFlags.scrape.histograms).toEqual([{ metric: 'app_infer_ms', unit: 'ms' }, { metric: 'app_infer', unit: 'us' }]);
    expect(fromFlags.scrape).toMatchObject({ timeoutMs: 2000, maxBytes: 4 * 1024 * 1024, maxSeries: 100 });
    const fromEnv = configOf(['--print', '--interval', '1'], { INFERWATCH_SCRAPE: 'vllm=http://127.0.0.1:8000/metrics,tgi=http://[::1]:3000/metrics' });
    expect(fromEnv.scrape.targets.map((t) => t.name)).toEqual(['vllm', 'tgi']);
    // The default time limit shrinks to a short interval.
    expect(fromEnv.scrape.timeoutMs).toBe(1000);
    const remote = configOf(['--print', '--scrape-allow-remote', '--scrape', 'gpu=http://10.0.0.5:8000/metrics']);
    expect(remote.scrape.targets[0]!.url.hostname).toBe('10.0.0.5');
  });

  test('the OTLP intake listens on 127.0.0.1:4318 unless moved or turned off, with named histograms and a series bound', () => {
    expect(configOf(['--print']).otlp).toEqual({ addr: { host: '127.0.0.1', port: 4318 }, histograms: [], maxSeries: 100 });
    expect(configOf(['--print', '--otlp-addr', 'off']).otlp.addr).toBeNull();
    const named = configOf(['--print', '--otlp-histogram', 'llm.queue.wait@ms', '--otlp-histogram', 'app/infer.duration', '--otlp-max-series', '50']);
    expect(named.otlp).toMatchObject({ histograms: [{ metric: 'llm.queue.wait', unit: 'ms' }, { metric: 'app/infer.duration', unit: null }], maxSeries: 50 });
    expect(configOf(['--print'], { INFERWATCH_OTLP_ADDR: '[::1]:4319' }).otlp.addr).toEqual({ host: '::1', port: 4319 });
  });

  test('--upgrade takes the server from the flag or INFERWATCH_SERVER (agent.env), with the same plain-http guard, and needs one', () => {
    expect(loadConfig({ argv: ['--upgrade', '--server', 'https://iw.example'], env: {} })).toEqual({ kind: 'upgrade', server: 'https://iw.example' });
    expect(loadConfig({ argv: ['--upgrade'], env: { INFERWATCH_SERVER: 'https://iw.example', INFERWATCH_SCRAPE: 'vllm=http://127.0.0.1:8000/metrics' } })).toEqual({
      kind: 'upgrade',
      server: 'https://iw.example',
    });
    expect(() => loadConfig({ argv: ['--upgrade', '--print'], env: {} })).toThrow('missing --server: --upgrade downloads the agent from the server');
    expect(() => loadConfig({ argv: ['--upgrade', '--server', 'http://iw.example'], env: {} })).toThrow(/plain http:\/\/ to another machine/);
  });

  test('returns help and version actions without validating the rest', () => {
    expect(loadConfig({ argv: ['--help', '--interval', 'x'], env: {} }).kind).toBe('help');
    expect(loadConfig({ argv: ['--version'], env: {} }).kind).toBe('version');
  });

  const badCases: [string, string[], Record<string, string | undefined>, RegExp][] = [
    ['unknown flag', ['--print', '--bogus'], {}, /Unknown option '--bogus'/],
    ['missing server without --print', [], {}, /missing --server/],
    ['server not a URL', ['--server', 'srv:3000'], {}, /invalid --server: must be an http/],
    ['interval not a number', ['--print', '--interval', 'ten'], {}, /invalid --interval: must be a number/],
    ['interval zero', ['--print', '--interval', '0'], {}, /invalid --interval: must be greater than 0/],
    ['interval above an hour', ['--print', '--interval', '3601'], {}, /invalid --interval: must be at most 3600/],
    ['bad interval from env names the variable', ['--print'], { INFERWATCH_INTERVAL: 'x' }, /invalid INFERWATCH_INTERVAL \(--interval\)/],
    ['container selector too short', ['--print', '--watch-process', 'container:9c1'], {}, /invalid --watch-process: "container:9c1": container: takes a container id/],
    ['pod selector from env that is no uid', ['--print'], { INFERWATCH_WATCH_PROCESS: 'python3@pod:x' }, /invalid INFERWATCH_WATCH_PROCESS \(--watch-process\): "python3@pod:x": pod: takes a pod uid/],
    ['pid not a number', ['--print', '--watch-pid', 'abc'], {}, /invalid --watch-pid: must be a pid/],
    ['pid negative', ['--print', '--watch-pid=-3'], {}, /invalid --watch-pid/],
    ['probe without =', ['--print', '--probe', 'http://x'], {}, /invalid --probe: invalid probe spec "http:\/\/x": missing "="/],
    ['probe with an unsupported scheme', ['--print', '--probe', 'a=ftp://x'], {}, /invalid --probe: .*unsupported scheme/],
    ['duplicate probe name', ['--print', '--probe', 'a=http://x', '--probe', 'a=http://y'], {}, /"a" is used twice/],
    ['statsd addr without port', ['--print', '--statsd-addr', 'localhost'], {}, /invalid --statsd-addr: must be HOST:PORT/],
    ['http intake port out of range', ['--print', '--http-intake-addr', '127.0.0.1:70000'], {}, /invalid --http-intake-addr/],
    ['spool size negative', ['--print', '--spool-max-mb=-1'], {}, /invalid --spool-max-mb: must be greater than 0/],
    ['both key forms', ['--print', '--enroll-key', 'k', '--enroll-key-file', '/x'], {}, /either --enroll-key or --enroll-key-file/],
    ['missing config file', ['--print', '--config', '/nonexistent.json'], {}, /invalid --config \/nonexistent.json/],
    ['scrape without =', ['--print', '--scrape', 'http://127.0.0.1:8000/metrics'], {}, /invalid --scrape: invalid scrape target .*missing "="/],
    ['scrape of another host', ['--print', '--scrape', 'vllm=http://10.0.0.5:8000/metrics'], {}, /10\.0\.0\.5 is not this machine's loopback; add --scrape-allow-remote/],
    ['scrape of a name that is not localhost', ['--print', '--scrape', 'vllm=http://gpu-1:8000/metrics'], {}, /gpu-1 is not this machine's loopback/],
    ['remote scrape from env names the variable', ['--print'], { INFERWATCH_SCRAPE: 'vllm=http://gpu-1/metrics' }, /invalid INFERWATCH_SCRAPE \(--scrape\)/],
    ['scrape with an unsupported scheme', ['--print', '--scrape', 'a=ftp://127.0.0.1/metrics'], {}, /unsupported scheme/],
    ['duplicate scrape name', ['--print', '--scrape', 'a=http://127.0.0.1:1/m', '--scrape', 'a=http://127.0.0.1:2/m'], {}, /"a" is used twice/],
    ['histogram without a unit', ['--print', '--scrape-histogram', 'app_latency'], {}, /invalid --scrape-histogram: the unit of "app_latency" is not in its name/],
    ['histogram with an unknown unit', ['--print', '--scrape-histogram', 'app_latency@min'], {}, /unknown unit "min"/],
    ['scrape timeout past the interval', ['--print', '--interval', '1', '--scrape-timeout', '2'], {}, /invalid --scrape-timeout: must be at most the interval/],
    ['too many series', ['--print', '--scrape-max-series', '1000'], {}, /invalid --scrape-max-series: must be at most 250/],
    ['otlp histogram that is no instrument name', ['--print', '--otlp-histogram', 'app latency'], {}, /invalid --otlp-histogram: "app latency" is not an OpenTelemetry instrument name/],
    ['otlp histogram with an unknown unit', ['--print', '--otlp-histogram', 'app.latency@min'], {}, /invalid --otlp-histogram: unknown unit "min"/],
    ['scraped and otlp series leaving statsd no room', ['--print', '--scrape', 'a=http://127.0.0.1:1/m', '--scrape-max-series', '250', '--otlp-max-series', '200'], {}, /450 leaves StatsD fewer than 100/],
  ];
  test.each(badCases)('rejects %s with a message naming the option', (_name, argv, env, message) => {
    expect(() => configOf(argv, env)).toThrow(ConfigError);
    expect(() => configOf(argv, env)).toThrow(message);
  });

  test('rejects an unknown key, a wrong type and broken JSON in the config file', () => {
    expect(() => configOf(['--print', '--config', writeJson('unknown.json', { servre: 'x' })])).toThrow(/unknown key "servre"/);
    expect(() => configOf(['--print', '--config', writeJson('type.json', { watchProcess: 'python' })])).toThrow(
      /invalid config file key "watchProcess" \(--watch-process\)/,
    );
    expect(() => configOf(['--print', '--config', writeJson('broken.json', '{"server": ')])).toThrow(/invalid --config/);
  });
});

describe('the CLI on bad config', () => {
  const runCli = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'agent/cli.ts'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, INFERWATCH_SERVER: '', INFERWATCH_CONFIG: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });

  test('exits 2 with one line naming the option', () => {
    const result = runCli(['--server', 'http://x', '--interval', 'soon']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['inferwatch-agent: invalid --interval: must be a number (seconds)']);
  });

  test('never echoes the enroll key, even when the option around it is bad', () => {
    const result = runCli(['--server', 'nope', '--enroll-key', 'ek_SUPERSECRET']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/invalid --server/);
    expect(result.stderr + result.stdout).not.toContain('SUPERSECRET');
  });

  test('prints help and exits 0', () => {
    const result = runCli(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--enroll-key-file FILE');
  });
});
