import type { Metadata } from 'next';
import { LoginForm } from '@/components/session/login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ssoError = (await searchParams).sso_error;
  return (
    <div className="login-page">
      <h1>Sign in</h1>
      <LoginForm ssoError={typeof ssoError === 'string' ? ssoError.slice(0, 500) : undefined} />
    </div>
  );
}
