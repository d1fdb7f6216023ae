// A real, certified OpenID provider (panva's oidc-provider) on loopback, for the integration test and the e2e suite:
// its own authorization, token, JWKS and userinfo endpoints, and a login page of ours at its interaction route where
// the person types an account id of the directory.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { LOGIN_FIELD, loginPage } from './oidc-login-page';

export interface OidcAccount {
  email: string;
  name: string;
  groups: string[];
}

export interface OidcClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface OidcProviderOptions {
  /** 0 or unset: any free port. */
  port?: number;
  clients: OidcClient[];
  /** By account id (the `sub`), read at each sign-in: a test may change it between sign-ins as an IdP admin would. */
  accounts: ReadonlyMap<string, OidcAccount>;
}

export interface RunningOidcProvider {
  issuer: string;
  close(): Promise<void>;
}

const INTERACTION_PATH = /^\/interaction\/([\w-]+)(\/login)?$/;

function configuration(options: OidcProviderOptions): Configuration {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [c.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' } as never] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    findAccount: (_ctx, sub) => {
      const account = options.accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: true, name: account.name, groups: account.groups }) };
    },
  };
}

async function formField(req: http.IncomingMessage, name: string): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 10_000) throw new Error('the login form is larger than it can be');
  }
  return new URLSearchParams(body).get(name)?.trim() ?? '';
}

/** GET shows the login page; its POST signs the account in and grants what the client asked for, then resumes. */
async function interact(provider: Provider, accounts: ReadonlyMap<string, OidcAccount>, req: http.IncomingMessage, res: http.ServerResponse, submitted: boolean) {
  const details = await provider.interactionDetails(req, res);
  const clientId = String(details.params.client_id);
  const scope = String(details.params.scope);
  const accountId = submitted ? await formField(req, LOGIN_FIELD) : undefined;
  if (accountId === undefined || !accounts.has(accountId)) {
    const error = accountId === undefined ? undefined : `There is no account "${accountId}" here.`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(loginPage({ action: `/interaction/${details.uid}/login`, clientId, scope, error }));
    return;
  }
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  // An address, not a name: the app accepts an http:// issuer only on loopback.
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, configuration(options));
  const handle = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const interaction = INTERACTION_PATH.exec(new URL(req.url ?? '/', issuer).pathname);
    if (!interaction) return void handle(req, res);
    const submitted = interaction[2] !== undefined && req.method === 'POST';
    interact(provider, options.accounts, req, res, submitted).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(String(err));
    });
  });
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
