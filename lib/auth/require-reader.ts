import 'server-only';

/**
 * The one gate every read endpoint passes. It allows everyone until login exists; the login issue makes it
 * check the session and throw UnauthorizedError (→ 401 through toErrorResponse).
 */
export async function requireReader(_request: Request): Promise<void> {}
