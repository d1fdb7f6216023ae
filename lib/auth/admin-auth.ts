import { ForbiddenError, UnauthorizedError } from '../errors';
import { serverEnvironment } from '../server/environment';
import { bearerToken, constantTimeEqual } from './tokens';

/** Until login exists, admin routes need `Authorization: Bearer $INFERWATCH_ADMIN_TOKEN`; unset disables them. */
export function authorizeAdmin(authorization: string | null, adminToken = serverEnvironment().adminToken): void {
  if (!adminToken) throw new ForbiddenError('admin API disabled: set INFERWATCH_ADMIN_TOKEN to enable it');
  const token = bearerToken(authorization);
  if (!token || !constantTimeEqual(token, adminToken)) throw new UnauthorizedError('missing or invalid admin token');
}
