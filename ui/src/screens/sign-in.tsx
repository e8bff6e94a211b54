/** Sign in with a password, or through an SSO provider from the public provider list. */
import { useState } from 'preact/hooks';
import type { SsoProvider } from 'scent/client';
import { ErrorText, Field } from '../components/ui.tsx';
import { useAsync } from '../components/hooks.ts';
import { route } from '../router.ts';
import { api, describe, session, signIn } from '../session.ts';
import { useStore } from '../store.ts';

/** BloodHound's SSO callback sends failures back as /ui/login?error=<code>. */
const SSO_ERRORS: Record<string, string> = {
  provider_not_found: 'That sign-in provider no longer exists.',
  provider_unreachable: 'The identity provider could not be reached.',
  provider_error: 'The identity provider refused the sign-in.',
  invalid_state: 'The sign-in took too long or was started in another tab. Try again.',
  missing_email: 'The identity provider did not say which e-mail address the account has.',
  user_not_linked: 'That Scent user signs in another way.',
  user_disabled: 'That Scent user is disabled.',
  user_not_found: 'No Scent user matches that account, and the provider does not create users.',
  role_invalid: 'The role the provider assigns does not exist.',
  user_conflict: 'Another Scent user already has that name.',
  server_error: 'The server could not finish the sign-in.',
  saml_response_invalid: 'The identity provider\'s answer could not be verified. Ask your administrator to check the SAML setup.',
  assertion_replayed: 'That sign-in answer was already used. Start the sign-in again.',
  provider_misconfigured: 'That sign-in provider is misconfigured. Ask your administrator.',
};

export function SignIn({ bootError }: { bootError: string | null }) {
  const { reason } = useStore(session);
  const [username, setUsername] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(bootError);
  // Anonymous list of providers; a server that requires sign-in for it answers 401, then there is none to show.
  const providers = useAsync<SsoProvider[]>(() => api.listSsoProviders().catch(() => []), []);
  const ssoError = route.get().params.get('error');

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username.trim(), secret);
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <h1>Scent</h1>
      <p class="muted">Sign in to the console</p>
      {reason === 'expired' ? <p class="notice" role="status">Your session has ended. Sign in again to continue.</p> : null}
      {reason === 'signed-out' ? <p class="notice" role="status">You are signed out.</p> : null}
      {ssoError ? <p class="error" role="alert">Single sign-on failed: {SSO_ERRORS[ssoError] ?? ssoError}</p> : null}
      <form onSubmit={submit} aria-label="Sign in with a password">
        <Field label="User name"><input name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></Field>
        <Field label="Password"><input name="password" type="password" autoComplete="current-password" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} /></Field>
        <ErrorText error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      {providers.data?.length ? (
        <nav aria-label="Single sign-on" class="sso">
          <p class="muted">or continue with</p>
          <ul>
            {providers.data.map((p) => (
              <li><a class="button" href={`/api/v2/sso/${encodeURIComponent(p.slug)}/login`}>{p.name} <span class="muted">({p.type})</span></a></li>
            ))}
          </ul>
        </nav>
      ) : null}
    </main>
  );
}
