import { isIP } from 'node:net';

/** An address range, `10.0.0.0/8` or `fd00::/8`. */
export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses one CIDR (a bare address is a single host); throws on anything else. */
export function parseCidr(text: string): Cidr {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) throw new Error(`not an address range: ${text}`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max) throw new Error(`not an address range: ${text}`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** `10.0.0.0/8, fd00::/8`: a comma-separated list, for INFERWATCH_ALERT_ALLOWED_NETWORKS. */
export function parseCidrList(text: string): Cidr[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(parseCidr);
}
