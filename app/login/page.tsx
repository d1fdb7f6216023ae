import type { Metadata } from 'next';
import { LoginForm } from '@/components/session/login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default function LoginPage() {
  return (
    <div className="login-page">
      <h1>Sign in</h1>
      <LoginForm />
    </div>
  );
}
