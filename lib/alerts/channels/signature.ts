import { createHmac, timingSafeEqual } from 'node:crypto';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`: the timestamp is signed, so a replay is datable. */
export function signWebhook(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** A receiver's check: the signature matches and its timestamp is within `toleranceMs` of now. */
export function verifyWebhookSignature(secret: string, header: string | null | undefined, body: string, nowMs: number, toleranceMs = 5 * 60_000): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || Math.abs(nowMs - t * 1000) > toleranceMs) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
