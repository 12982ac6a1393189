import type { Metadata } from 'next';
import { LoginForm } from '../../components/login-form';

export const metadata: Metadata = { robots: { index: false } };

export default function LoginPage() {
  return <LoginForm />;
}
