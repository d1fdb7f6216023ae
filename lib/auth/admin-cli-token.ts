import 'server-only';
import { processSlot } from '../process-singleton';
import { ADMIN_CLI_TOKEN_PREFIX, constantTimeEqual, generateToken, hashToken } from './tokens';

/**
 * The credential `npm run admin` uses on the server's own machine while the server holds the embedded database:
 * made fresh at each start and kept only in the server file (0600, in the state dir), so whoever may read the
 * server's state — and with it the database's files — may act as admin, and nobody else.
 */
const current = processSlot<string>('admin-cli-token-hash');

export function issueAdminCliToken(): string {
  const token = generateToken(ADMIN_CLI_TOKEN_PREFIX);
  current.set(hashToken(token));
  return token;
}

export function isAdminCliToken(token: string): boolean {
  const hash = current.get();
  return hash !== undefined && token.startsWith(ADMIN_CLI_TOKEN_PREFIX) && constantTimeEqual(hashToken(token), hash);
}
