export type ProbeProtocol = 'tcp' | 'http' | 'https';

export interface ProbeSpec {
  name: string;
  /** The URL as given, reported as the sample's target. */
  target: string;
  protocol: ProbeProtocol;
  /** Without IPv6 brackets, ready for net.connect. */
  host: string;
  port: number;
  url: URL;
}

const MAX_NAME_LENGTH = 200;
const MAX_TARGET_LENGTH = 500;
const DEFAULT_PORTS: Record<ProbeProtocol, number | null> = { tcp: null, http: 80, https: 443 };
const SPEC_FORMAT = 'expected NAME=tcp://HOST:PORT or NAME=http(s)://HOST[:PORT]/PATH';

/** Parses `--probe` text such as "oslo=tcp://10.0.0.5:443" or "fra=https://fra.example.com/healthz". */
export function parseProbeSpec(text: string): ProbeSpec {
  const fail = (why: string): never => {
    throw new Error(`invalid probe spec "${text}": ${why} (${SPEC_FORMAT})`);
  };
  const eq = text.indexOf('=');
  if (eq === -1) fail('missing "="');
  const name = text.slice(0, eq).trim();
  const target = text.slice(eq + 1).trim();
  if (name === '' || name.length > MAX_NAME_LENGTH) fail(`the name must be 1–${MAX_NAME_LENGTH} characters`);
  if (target.length > MAX_TARGET_LENGTH) fail(`the URL is longer than ${MAX_TARGET_LENGTH} characters`);
  if (!URL.canParse(target)) fail('the URL does not parse');
  const url = new URL(target);
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'tcp' && protocol !== 'http' && protocol !== 'https') fail(`unsupported scheme "${url.protocol}"`);
  const kind = protocol as ProbeProtocol;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail('the URL has no host');
  const port = url.port === '' ? DEFAULT_PORTS[kind] : Number(url.port);
  if (port === null) fail('a tcp:// probe needs a port');
  if (kind === 'tcp' && ((url.pathname !== '' && url.pathname !== '/') || url.search !== '')) fail('a tcp:// probe takes no path');
  return { name, target, protocol: kind, host, port: port!, url };
}
