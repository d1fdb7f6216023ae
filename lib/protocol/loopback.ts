const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether a URL's or Host header's host name is this machine's loopback, from the name alone (a name is not resolved:
 * only `localhost` and `*.localhost`, which resolvers keep on loopback). Brackets of an IPv6 literal and a `:port`
 * after a bracket are allowed; agent, server and browser share this one reading.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[([^\]]*)\](?::\d+)?$/, '$1');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = IPV4.exec(host);
  if (v4) return v4[1] === '127' && v4.slice(1).every((part) => Number(part) <= 255);
  return host === '::1' || /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
