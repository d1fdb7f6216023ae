// The e2e suite's OpenID provider, which playwright.config.ts starts before the app (`node --import tsx`): on
// E2E_OIDC_PORT, with the app's client registered for E2E_OIDC_REDIRECT_URI, and the accounts sso.spec.ts uses.
import { E2E_OIDC_CLIENT, E2E_SSO_ACCOUNTS } from './e2e-sso';
import { startOidcProvider } from './oidc-provider';

const port = Number(process.env.E2E_OIDC_PORT);
const redirectUri = process.env.E2E_OIDC_REDIRECT_URI;
if (!Number.isInteger(port) || port <= 0 || !redirectUri) throw new Error('E2E_OIDC_PORT and E2E_OIDC_REDIRECT_URI must be set');

const provider = await startOidcProvider({
  port,
  clients: [{ ...E2E_OIDC_CLIENT, redirectUri }],
  accounts: new Map(Object.values(E2E_SSO_ACCOUNTS).map(({ id, ...account }) => [id, account])),
});
console.log(`test OpenID provider: ${provider.issuer}, client ${E2E_OIDC_CLIENT.clientId} → ${redirectUri}`);
