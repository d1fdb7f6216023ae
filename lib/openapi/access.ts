import type { SecuritySchemeObject, SecurityRequirementObject } from 'openapi3-ts/oas31';

/**
 * Who may call an operation: a reader, an editor (acknowledge, silence, configure alerts and thresholds) or an
 * administrator (keys, policies), the agent with its host token or enrollment key, or anyone. The route handlers
 * decide; the document says the same, and tests/unit/openapi/coverage.test.ts compares them.
 */
export type Access = 'public' | 'viewer' | 'editor' | 'admin' | 'ingest' | 'enroll';

export const SECURITY_SCHEMES = {
  hostToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The host token (`iwh_…`) that POST /api/v1/enroll returned to the agent; it writes only its own host.',
  },
  enrollmentKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An enrollment key (`iwk_…`, `npm run admin -- keys create`), bound to a region and labels.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The server’s `INFERWATCH_ADMIN_TOKEN`; while it is unset, admin operations answer 403.',
  },
} satisfies Record<string, SecuritySchemeObject>;

/**
 * Each access class as OpenAPI security requirements: the one place to change when login lands (reads then need
 * a session or an API token, and editors and admins their role instead of the admin token).
 */
export const SECURITY: Record<Access, SecurityRequirementObject[]> = {
  public: [],
  viewer: [],
  editor: [{ adminToken: [] }],
  admin: [{ adminToken: [] }],
  ingest: [{ hostToken: [] }],
  enroll: [{ enrollmentKey: [] }],
};
