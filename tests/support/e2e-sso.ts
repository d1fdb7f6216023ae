import type { OidcAccount } from './oidc-provider';

/** The e2e server's client, registered at the test provider (e2e-oidc-provider.ts) and given to the app (playwright.config.ts). */
export const E2E_OIDC_CLIENT = { clientId: 'inferwatch-e2e', clientSecret: 'the e2e client secret, long enough' };
export const E2E_OIDC_ROLE_CLAIM = 'groups';
export const E2E_OIDC_ROLES = 'iw-admins=admin,iw-editors=editor';

/** The provider's directory, by account id: the one sso.spec.ts signs in as, and one whose groups map to no role. */
export const E2E_SSO_ACCOUNTS = {
  editor: { id: 'sso-editor', email: 'sso-editor@example.com', name: 'Edda SSO', groups: ['staff', 'iw-editors'] },
  unmapped: { id: 'sso-sales', email: 'sso-sales@example.com', name: 'Sal SSO', groups: ['sales'] },
} satisfies Record<string, OidcAccount & { id: string }>;
