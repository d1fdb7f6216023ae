import type { AdminStatus } from '../protocol/admin';
import { serverEnvironment } from '../server/environment';
import { bearerToken, constantTimeEqual } from './tokens';

/** Whether the admin API is on, and whether `authorization` carries its token: what the dashboard asks before a write. */
export function adminStatus(authorization: string | null, adminToken = serverEnvironment().adminToken): AdminStatus {
  if (!adminToken) return { enabled: false, tokenAccepted: null };
  const token = bearerToken(authorization);
  return { enabled: true, tokenAccepted: token === null ? null : constantTimeEqual(token, adminToken) };
}
