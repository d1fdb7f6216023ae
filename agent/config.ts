import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseProcessSelector } from './collectors/process-selectors';
import { parseProbeSpec, type ProbeSpec } from './collectors/probe-spec';
import { MAX_LATENCY_SERIES } from './latency/aggregator';
import { DEFAULT_OTLP_MAX_SERIES } from './otlp/accumulator';
import { parseOtlpHistogramSpec, type OtlpHistogramSpec } from './otlp/catalog';
import { parseHistogramSpec, type HistogramSource } from './scrape/catalog';
import { DEFAULT_SCRAPE_MAX_SERIES } from './scrape/scraper';
import { parseScrapeTarget, type ScrapeTarget } from './scrape/target';
import { isLoopbackHost } from '../lib/protocol/loopback';

export class ConfigError extends Error {}

export interface ListenAddr {
  host: string;
  port: number;
}

/** Every option: its flag, the key in the JSON config file, and its env var. */
const OPTIONS = {
  server: { type: 'string', env: 'INFERWATCH_SERVER' },
  interval: { type: 'string', env: 'INFERWATCH_INTERVAL' },
  'state-dir': { type: 'string', env: 'INFERWATCH_STATE_DIR' },
  'enroll-key': { type: 'string', env: 'INFERWATCH_ENROLL_KEY' },
  'enroll-key-file': { type: 'string', env: 'INFERWATCH_ENROLL_KEY_FILE' },
  'watch-process': { type: 'string', multiple: true, env: 'INFERWATCH_WATCH_PROCESS' },
  'watch-pid': { type: 'string', multiple: true, env: 'INFERWATCH_WATCH_PID' },
  'watch-log': { type: 'string', multiple: true, env: 'INFERWATCH_WATCH_LOG' },
  'data-path': { type: 'string', multiple: true, env: 'INFERWATCH_DATA_PATH' },
  probe: { type: 'string', multiple: true, env: 'INFERWATCH_PROBE' },
  scrape: { type: 'string', multiple: true, env: 'INFERWATCH_SCRAPE' },
  'scrape-histogram': { type: 'string', multiple: true, env: 'INFERWATCH_SCRAPE_HISTOGRAM' },
  'scrape-allow-remote': { type: 'boolean', env: 'INFERWATCH_SCRAPE_ALLOW_REMOTE' },
  'allow-plain-http': { type: 'boolean', env: 'INFERWATCH_ALLOW_PLAIN_HTTP' },
  'scrape-timeout': { type: 'string', env: 'INFERWATCH_SCRAPE_TIMEOUT' },
  'scrape-max-mb': { type: 'string', env: 'INFERWATCH_SCRAPE_MAX_MB' },
  'scrape-max-series': { type: 'string', env: 'INFERWATCH_SCRAPE_MAX_SERIES' },
  'statsd-addr': { type: 'string', env: 'INFERWATCH_STATSD_ADDR' },
  'http-intake-addr': { type: 'string', env: 'INFERWATCH_HTTP_INTAKE_ADDR' },
  'otlp-addr': { type: 'string', env: 'INFERWATCH_OTLP_ADDR' },
  'otlp-histogram': { type: 'string', multiple: true, env: 'INFERWATCH_OTLP_HISTOGRAM' },
  'otlp-max-series': { type: 'string', env: 'INFERWATCH_OTLP_MAX_SERIES' },
  'spool-max-mb': { type: 'string', env: 'INFERWATCH_SPOOL_MAX_MB' },
  'retry-max': { type: 'string', env: 'INFERWATCH_RETRY_MAX' },
  'proc-root': { type: 'string', env: 'INFERWATCH_PROC_ROOT' },
  'sys-root': { type: 'string', env: 'INFERWATCH_SYS_ROOT' },
  hostname: { type: 'string', env: 'INFERWATCH_HOSTNAME' },
  once: { type: 'boolean', env: 'INFERWATCH_ONCE' },
  print: { type: 'boolean', env: 'INFERWATCH_PRINT' },
} as const;

type OptionName = keyof typeof OPTIONS;
type RawValue = string | number | boolean | string[] | number[];

export const HELP_TEXT = `inferwatch-agent — host-health and latency agent for ML inference hosts

Usage: inferwatch-agent [options]

  --server URL              inferwatch server to report to (required unless --print)
  --interval SECONDS        collection interval (default 10)
  --state-dir DIR           spool, seq and host token (default /var/lib/inferwatch-agent as root,
                            else ~/.local/state/inferwatch-agent)
  --enroll-key KEY          enrollment key, used once when no host token exists for the server
  --enroll-key-file FILE    read the enrollment key from FILE (keeps it out of ps)
  --watch-process NAME      watch processes whose comm or argv[0] is NAME (repeatable); or by container:
                            container:ID (an id or its first 4+ hex digits), pod:UID (a Kubernetes pod
                            uid or its start), NAME@container:ID or NAME@pod:UID (those named NAME in it)
  --watch-pid PID           watch one process by pid (repeatable)
  --watch-log FILE          scan FILE for known warnings (repeatable)
  --data-path DIR           report the device and filesystem behind DIR (repeatable)
  --probe NAME=URL          time a connection or request every interval: NAME=tcp://HOST:PORT or
                            NAME=http(s)://HOST[:PORT]/PATH (repeatable)
  --scrape NAME=URL         read a model server's Prometheus /metrics every interval (vLLM, TGI, Triton,
                            TorchServe, BentoML, Ray Serve): NAME=http://127.0.0.1:8000/metrics (repeatable;
                            loopback only unless --scrape-allow-remote)
  --scrape-histogram METRIC[@s|ms|us]  also turn this histogram into a latency series (repeatable; the unit from
                            the name's _seconds/_ms/_us suffix unless given)
  --scrape-allow-remote     allow --scrape URLs on other hosts
  --allow-plain-http        report to an http:// server on another machine (keys and reports unencrypted)
  --scrape-timeout SECONDS  time limit of one scrape (default 2, at most the interval)
  --scrape-max-mb MB        size limit of one scrape's body (default 4)
  --scrape-max-series N     latency series kept from all scrapes; more are dropped and counted (default 100)
  --statsd-addr HOST:PORT   StatsD timings listener (default 127.0.0.1:8125, "off" disables)
  --http-intake-addr HOST:PORT  HTTP timings intake (default 127.0.0.1:8126, "off" disables)
  --otlp-addr HOST:PORT     OpenTelemetry OTLP/HTTP metrics intake, POST /v1/metrics, protobuf or JSON
                            (default 127.0.0.1:4318, "off" disables): GenAI duration histograms become
                            latency series
  --otlp-histogram NAME[@s|ms|us]  also turn this OTLP histogram into a latency series (repeatable; the unit
                            the exporter sends unless given)
  --otlp-max-series N       latency series kept from OTLP; more are refused and counted (default 100)
  --spool-max-mb MB         bound of the on-disk spool; the oldest reports are dropped beyond it (default 100)
  --retry-max SECONDS       longest wait between two attempts to deliver or enroll while the server fails
                            (default 60; the waits grow from 1 s to it, with jitter)
  --proc-root DIR           where /proc is (default /proc)
  --sys-root DIR            where /sys is (default /sys)
  --hostname NAME           the host name to enroll and report as (default: this machine's; in a container,
                            give the node's, e.g. Kubernetes' spec.nodeName)
  --config FILE             JSON config file; keys are the option names in camelCase (stateDir, watchProcess, ...)
  --once                    collect one report, send it (or print it) and exit
  --print                   print each report as JSON to stdout
  --help                    show this text
  --version                 print the agent version
  --upgrade                 replace this agent's file with the server's (SHA-256 checked, swapped by rename,
                            the old one put back if the new one does not start), then exit; restart the
                            service after it

Every option can also be set as INFERWATCH_<OPTION> (e.g. INFERWATCH_SERVER, INFERWATCH_STATE_DIR; lists are
comma-separated). Precedence: config file < environment < flags.
`;

const addrSchema = z.string().transform((text, ctx): ListenAddr | null => {
  if (text === 'off') return null;
  const match = /^(.+):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    ctx.issues.push({ code: 'custom', message: 'must be HOST:PORT or "off"', input: text });
    return z.NEVER;
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
});

const HOSTNAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

const positiveNumber = (max: number, what: string) =>
  z.coerce.number({ message: `must be a number (${what})` }).gt(0, `must be greater than 0 (${what})`).max(max, `must be at most ${max} (${what})`);

const probeSpecSchema = z.string().transform((text, ctx): ProbeSpec => {
  try {
    return parseProbeSpec(text);
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text });
    return z.NEVER;
  }
});

function checkSelector(text: string, ctx: z.RefinementCtx): void {
  try {
    parseProcessSelector(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message, input: text });
  }
}

const histogramSpecSchema = z.string().transform((text, ctx): HistogramSource => {
  try {
    return parseHistogramSpec(text);
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text });
    return z.NEVER;
  }
});

const otlpHistogramSpecSchema = z.string().transform((text, ctx): OtlpHistogramSpec => {
  try {
    return parseOtlpHistogramSpec(text);
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text });
    return z.NEVER;
  }
});

const MIN_STATSD_SERIES = 100;

const seriesBound = (fallback: number) =>
  z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').max(250, 'must be at most 250').default(fallback);

const rawSchema = z.strictObject({
  server: z
    .string()
    .refine((s) => /^https?:\/\//.test(s) && URL.canParse(s), 'must be an http:// or https:// URL')
    .transform((s) => s.replace(/\/+$/, ''))
    .optional(),
  interval: positiveNumber(3600, 'seconds').refine((s) => s >= 0.1, 'must be at least 0.1 seconds').default(10),
  'state-dir': z.string().min(1, 'must not be empty').optional(),
  'enroll-key': z.string().min(1, 'must not be empty').optional(),
  'enroll-key-file': z.string().min(1, 'must not be empty').optional(),
  'watch-process': z.array(z.string().min(1, 'must not be empty').max(200).superRefine(checkSelector)).default([]),
  'watch-pid': z.array(z.coerce.number({ message: 'must be a pid (a whole number)' }).int('must be a whole number').positive('must be a positive pid')).default([]),
  'watch-log': z.array(z.string().min(1, 'must not be empty')).default([]),
  'data-path': z.array(z.string().min(1, 'must not be empty').max(1000)).max(32).default([]),
  probe: z.array(probeSpecSchema).max(64).default([]),
  scrape: z.array(z.string().min(1, 'must not be empty').max(1100)).max(32, 'at most 32 scrape targets').default([]),
  'scrape-histogram': z.array(histogramSpecSchema).max(64).default([]),
  'scrape-allow-remote': z.boolean().default(false),
  'allow-plain-http': z.boolean().default(false),
  'scrape-timeout': positiveNumber(60, 'seconds').default(2),
  'scrape-max-mb': positiveNumber(64, 'megabytes').default(4),
  'scrape-max-series': seriesBound(DEFAULT_SCRAPE_MAX_SERIES),
  'statsd-addr': addrSchema.prefault('127.0.0.1:8125'),
  'http-intake-addr': addrSchema.prefault('127.0.0.1:8126'),
  'otlp-addr': addrSchema.prefault('127.0.0.1:4318'),
  'otlp-histogram': z.array(otlpHistogramSpecSchema).max(64).default([]),
  'otlp-max-series': seriesBound(DEFAULT_OTLP_MAX_SERIES),
  'spool-max-mb': positiveNumber(1_000_000, 'megabytes').default(100),
  'retry-max': positiveNumber(3600, 'seconds').default(60),
  'proc-root': z.string().min(1).default('/proc'),
  'sys-root': z.string().min(1).default('/sys'),
  hostname: z
    .string()
    .max(253, 'must be at most 253 characters')
    .regex(HOSTNAME_PATTERN, 'must be a DNS host name: letters, digits and hyphens in dot-separated labels of 1–63')
    .optional(),
  once: z.boolean().default(false),
  print: z.boolean().default(false),
});

export interface AgentConfig {
  server: string | null;
  intervalMs: number;
  stateDir: string;
  /** --enroll-key: the key itself. */
  enrollKey: string | null;
  /** --enroll-key-file: read only when the agent has no host token and must enroll (readEnrollKey). */
  enrollKeyFile: string | null;
  watchProcesses: string[];
  watchPids: number[];
  watchLogs: string[];
  dataPaths: string[];
  probes: ProbeSpec[];
  scrape: ScrapeConfig;
  statsdAddr: ListenAddr | null;
  httpIntakeAddr: ListenAddr | null;
  otlp: OtlpConfig;
  spoolMaxBytes: number;
  /** --retry-max: the cap of the backoff between delivery (and enrollment) attempts. */
  retryMaxMs: number;
  procRoot: string;
  sysRoot: string;
  /** --hostname: reported instead of os.hostname() (a container's own name is not the node's). */
  hostname: string | null;
  once: boolean;
  print: boolean;
}

export interface ScrapeConfig {
  targets: ScrapeTarget[];
  histograms: HistogramSource[];
  timeoutMs: number;
  maxBytes: number;
  maxSeries: number;
}

export interface OtlpConfig {
  addr: ListenAddr | null;
  histograms: OtlpHistogramSpec[];
  maxSeries: number;
}

export type CliAction = { kind: 'help' } | { kind: 'version' } | { kind: 'upgrade'; server: string } | { kind: 'run'; config: AgentConfig };

export interface LoadConfigInput {
  argv: string[];
  env: Readonly<Record<string, string | undefined>>;
  isRoot?: boolean;
  homeDir?: string;
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function parseFlags(argv: string[]) {
  const options = Object.fromEntries(
    Object.entries(OPTIONS).map(([name, o]) => [name, { type: o.type, ...('multiple' in o ? { multiple: true } : {}) }]),
  );
  try {
    return parseArgs({
      args: argv,
      options: { ...options, config: { type: 'string' }, help: { type: 'boolean' }, version: { type: 'boolean' }, upgrade: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, RawValue | undefined>;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message} (see --help)`);
  }
}

function fromEnv(env: LoadConfigInput['env']): Partial<Record<OptionName, RawValue>> {
  const out: Partial<Record<OptionName, RawValue>> = {};
  for (const [name, o] of Object.entries(OPTIONS) as [OptionName, (typeof OPTIONS)[OptionName]][]) {
    const text = env[o.env];
    if (text === undefined || text === '') continue;
    if (o.type === 'boolean') out[name] = /^(1|true|yes)$/i.test(text);
    else if ('multiple' in o) out[name] = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    else out[name] = text;
  }
  return out;
}

function fromFile(file: string): Partial<Record<OptionName, RawValue>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`invalid --config ${file}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`invalid --config ${file}: must be a JSON object`);
  }
  const byCamel = new Map(Object.keys(OPTIONS).map((name) => [camel(name), name as OptionName]));
  const out: Partial<Record<OptionName, RawValue>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const name = byCamel.get(key);
    if (!name) throw new ConfigError(`invalid --config ${file}: unknown key "${key}"`);
    out[name] = value as RawValue;
  }
  return out;
}

function describeSource(name: OptionName, source: 'file' | 'env' | 'flag' | 'default'): string {
  if (source === 'env') return `${OPTIONS[name].env} (--${name})`;
  if (source === 'file') return `config file key "${camel(name)}" (--${name})`;
  return `--${name}`;
}

/** The enrollment key, from --enroll-key or its file; null when neither is given. Called only to enroll. */
export function readEnrollKey(config: Pick<AgentConfig, 'enrollKey' | 'enrollKeyFile'>): string | null {
  return config.enrollKey ?? (config.enrollKeyFile ? readKeyFile(config.enrollKeyFile) : null);
}

function readKeyFile(file: string): string {
  try {
    const key = readFileSync(file, 'utf8').trim();
    if (key === '') throw new Error('file is empty');
    return key;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`invalid --enroll-key-file ${file}: ${code ?? (err as Error).message}`);
  }
}

export function defaultStateDir(isRoot: boolean, homeDir: string): string {
  return isRoot ? '/var/lib/inferwatch-agent' : path.join(homeDir, '.local/state/inferwatch-agent');
}

/** Parses flags, env and the config file into one validated config; throws ConfigError naming the bad option. */
/** An http:// server that is not this machine's loopback: keys, tokens and reports would travel unencrypted. */
function sendsInTheClear(server: string): boolean {
  const url = new URL(server);
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

export function loadConfig(input: LoadConfigInput): CliAction {
  const flags = parseFlags(input.argv);
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };

  const configFile = (flags.config as string | undefined) ?? input.env.INFERWATCH_CONFIG;
  const layers = [
    ['file', configFile ? fromFile(configFile) : {}],
    ['env', fromEnv(input.env)],
    ['flag', flags],
  ] as const;
  const merged: Record<string, unknown> = {};
  const sourceOf = new Map<string, 'file' | 'env' | 'flag'>();
  for (const [source, values] of layers) {
    for (const name of Object.keys(OPTIONS)) {
      const value = (values as Record<string, unknown>)[name];
      if (value === undefined) continue;
      merged[name] = value;
      sourceOf.set(name, source);
    }
  }

  const result = rawSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0]) as OptionName;
    const where = describeSource(name, sourceOf.get(name) ?? 'default');
    throw new ConfigError(`invalid ${where}: ${issue.message}`);
  }
  const raw = result.data;
  if (raw['enroll-key'] && raw['enroll-key-file']) {
    throw new ConfigError('invalid --enroll-key-file: give either --enroll-key or --enroll-key-file, not both');
  }
  if (flags.upgrade && !raw.server) {
    throw new ConfigError('missing --server: --upgrade downloads the agent from the server (--server URL or INFERWATCH_SERVER)');
  }
  if (!raw.server && !raw.print) {
    throw new ConfigError('missing --server: give --server URL (or INFERWATCH_SERVER), or use --print');
  }
  if (raw.server && !raw['allow-plain-http'] && sendsInTheClear(raw.server)) {
    throw new ConfigError(
      `invalid ${describeSource('server', sourceOf.get('server') ?? 'flag')}: ${raw.server} is plain http:// to another machine, ` +
        'so the enrollment key, the host token and every report would cross the network readable; use https://, ' +
        'or --allow-plain-http on a network you trust',
    );
  }
  if (flags.upgrade) return { kind: 'upgrade', server: raw.server! };
  const probeNames = new Set<string>();
  for (const probe of raw.probe) {
    if (probeNames.has(probe.name)) throw new ConfigError(`invalid --probe: the name "${probe.name}" is used twice`);
    probeNames.add(probe.name);
  }

  const targets = raw.scrape.map((text) => {
    try {
      return parseScrapeTarget(text, raw['scrape-allow-remote']);
    } catch (err) {
      throw new ConfigError(`invalid ${describeSource('scrape', sourceOf.get('scrape') ?? 'flag')}: ${(err as Error).message}`);
    }
  });
  const scrapeNames = new Set<string>();
  for (const target of targets) {
    if (scrapeNames.has(target.name)) throw new ConfigError(`invalid --scrape: the name "${target.name}" is used twice`);
    scrapeNames.add(target.name);
  }
  // A scrape must end before the next collection: the default shrinks with a short interval, a given one may not exceed it.
  const scrapeTimeoutS = sourceOf.has('scrape-timeout') ? raw['scrape-timeout'] : Math.min(raw['scrape-timeout'], raw.interval);
  if (scrapeTimeoutS > raw.interval) {
    throw new ConfigError(`invalid ${describeSource('scrape-timeout', sourceOf.get('scrape-timeout')!)}: must be at most the interval (${raw.interval} s)`);
  }

  // StatsD and the HTTP intake keep what the scraped and OTLP series leave of the report's bound.
  const pushedBound = (targets.length ? raw['scrape-max-series'] : 0) + (raw['otlp-addr'] ? raw['otlp-max-series'] : 0);
  if (pushedBound > MAX_LATENCY_SERIES - MIN_STATSD_SERIES) {
    throw new ConfigError(
      `invalid --scrape-max-series + --otlp-max-series: ${pushedBound} leaves StatsD fewer than ${MIN_STATSD_SERIES} of the report's ${MAX_LATENCY_SERIES} latency series`,
    );
  }

  const isRoot = input.isRoot ?? process.getuid?.() === 0;
  return {
    kind: 'run',
    config: {
      server: raw.server ?? null,
      intervalMs: Math.round(raw.interval * 1000),
      stateDir: path.resolve(raw['state-dir'] ?? defaultStateDir(isRoot, input.homeDir ?? os.homedir())),
      enrollKey: raw['enroll-key'] ?? null,
      enrollKeyFile: raw['enroll-key-file'] ? path.resolve(raw['enroll-key-file']) : null,
      watchProcesses: raw['watch-process'],
      watchPids: raw['watch-pid'],
      watchLogs: raw['watch-log'],
      dataPaths: raw['data-path'],
      probes: raw.probe,
      scrape: {
        targets,
        histograms: raw['scrape-histogram'],
        timeoutMs: Math.round(scrapeTimeoutS * 1000),
        maxBytes: Math.round(raw['scrape-max-mb'] * 1024 * 1024),
        maxSeries: raw['scrape-max-series'],
      },
      statsdAddr: raw['statsd-addr'],
      httpIntakeAddr: raw['http-intake-addr'],
      otlp: { addr: raw['otlp-addr'], histograms: raw['otlp-histogram'], maxSeries: raw['otlp-max-series'] },
      spoolMaxBytes: Math.round(raw['spool-max-mb'] * 1024 * 1024),
      retryMaxMs: Math.round(raw['retry-max'] * 1000),
      procRoot: raw['proc-root'],
      sysRoot: raw['sys-root'],
      hostname: raw.hostname ?? null,
      once: raw.once,
      print: raw.print,
    },
  };
}
