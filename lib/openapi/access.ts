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
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'iw_session',
    description: 'The session cookie POST /api/v1/auth/login sets (HttpOnly, SameSite=Lax); browser writes must come from this origin.',
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A user’s API token (`iwt_…`, made on the Settings page), acting with at most its user’s role.',
  },
  bootstrapToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The server’s `INFERWATCH_ADMIN_TOKEN`, when set: admin, for scripts until they have API tokens.',
  },
} satisfies Record<string, SecuritySchemeObject>;

const SIGNED_IN: SecurityRequirementObject[] = [{ session: [] }, { apiToken: [] }, { bootstrapToken: [] }];

/**
 * Each access class as OpenAPI security requirements. viewer, editor and admin take the same credentials; the role
 * behind them decides (a server listening on loopback only signs its visitors in as the local admin).
 */
export const SECURITY: Record<Access, SecurityRequirementObject[]> = {
  public: [],
  viewer: SIGNED_IN,
  editor: SIGNED_IN,
  admin: SIGNED_IN,
  ingest: [{ hostToken: [] }],
  enroll: [{ enrollmentKey: [] }],
};
