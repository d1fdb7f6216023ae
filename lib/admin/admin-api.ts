import { recordAudit } from '../auth/audit';
import { revokeHostToken } from '../auth/authenticate-host';
import { approveReenrollment } from '../auth/enroll-host';
import type { EnrollmentKeyRequest } from '../auth/enrollment-key-input';
import { createEnrollmentKey, listEnrollmentKeys, revokeEnrollmentKey } from '../auth/enrollment-keys';
import { createUser, listUsers } from '../auth/users';
import type { Database } from '../db';
import { AppError } from '../errors';
import type { CreatedEnrollmentKeyView, EnrollmentKeyView, ReenrollApproval } from '../protocol/admin';
import type { UserInput, UserView } from '../protocol/auth';
import type { ErrorEnvelope } from '../protocol/errors';
import type { RunningServer } from './server-file';

/** What `npm run admin` does, wherever the database is: opened here, or held by the server running on this machine. */
export interface AdminApi {
  createKey(input: EnrollmentKeyRequest): Promise<CreatedEnrollmentKeyView>;
  listKeys(): Promise<EnrollmentKeyView[]>;
  revokeKey(keyId: number): Promise<EnrollmentKeyView>;
  revokeHostToken(hostId: number): Promise<void>;
  approveReenrollment(hostId: number): Promise<ReenrollApproval>;
  createUser(input: UserInput & { password: string }): Promise<UserView>;
  listUsers(): Promise<UserView[]>;
}

export function databaseAdminApi(db: Database): AdminApi {
  return {
    createKey: (input) => createEnrollmentKey(db, input),
    listKeys: () => listEnrollmentKeys(db),
    revokeKey: (keyId) => revokeEnrollmentKey(db, keyId),
    revokeHostToken: (hostId) => revokeHostToken(db, hostId),
    approveReenrollment: (hostId) => approveReenrollment(db, hostId),
    async createUser(input) {
      const user = await createUser(db, input);
      await recordAudit(db, { kind: 'system', userId: null, name: 'npm run admin' }, '', { action: 'user.create', target: `user ${user.id} (${user.email})`, detail: { role: user.role } });
      return user;
    },
    listUsers: () => listUsers(db),
  };
}

/**
 * The same commands through the admin API of the server that holds the embedded database (one process may open it),
 * on its loopback address with the admin CLI token of its server file. The server audits each write.
 */
export function serverAdminApi(server: RunningServer, fetchImpl: typeof fetch = fetch): AdminApi {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetchImpl(new URL(path, server.url), {
      method,
      headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      const envelope = safeJson(text) as Partial<ErrorEnvelope> | undefined;
      throw new AppError(response.status, envelope?.error?.code ?? 'http_error', envelope?.error?.message ?? `HTTP ${response.status} from ${server.url}`);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  return {
    createKey: (input) => call('POST', '/api/v1/admin/enrollment-keys', input),
    listKeys: async () => (await call<{ keys: EnrollmentKeyView[] }>('GET', '/api/v1/admin/enrollment-keys')).keys,
    revokeKey: (keyId) => call('DELETE', `/api/v1/admin/enrollment-keys/${keyId}`),
    revokeHostToken: (hostId) => call('POST', `/api/v1/admin/hosts/${hostId}/token-revocation`),
    approveReenrollment: (hostId) => call('POST', `/api/v1/admin/hosts/${hostId}/reenroll-approval`),
    createUser: (input) => call('POST', '/api/v1/admin/users', input),
    listUsers: async () => (await call<{ users: UserView[] }>('GET', '/api/v1/admin/users')).users,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
