/** The name of the login form's field that holds the account id. */
export const LOGIN_FIELD = 'login';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The test provider's login page: one field for the account id; signing in consents to what the client asked for. */
export function loginPage(input: { action: string; clientId: string; scope: string; error?: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in · test OpenID provider</title></head>
<body>
<main>
<h1>Sign in to the test OpenID provider</h1>
<p>${escapeHtml(input.clientId)} asks for: ${escapeHtml(input.scope)}. Signing in allows it.</p>
${input.error ? `<p role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}" aria-label="Sign in">
<label>Account <input name="${LOGIN_FIELD}" autocomplete="username" required autofocus></label>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
