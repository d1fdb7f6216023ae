import type { SecuritySchemeObject, SecurityRequirementObject } from 'openapi3-ts/oas31';

/** Who may call an operation. The route handlers decide; the document says the same, and a test compares them. */
export type Access = 'public' | 'read' | 'admin' | 'ingest' | 'enroll';

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
 * Each access class as an OpenAPI security requirement: the one place to change when reads need a session or an
 * API token (then `read` lists those schemes, defined above).
 */
export const SECURITY: Record<Access, SecurityRequirementObject[]> = {
  public: [],
  read: [],
  admin: [{ adminToken: [] }],
  ingest: [{ hostToken: [] }],
  enroll: [{ enrollmentKey: [] }],
};
