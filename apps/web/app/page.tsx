import { messages } from '../locales';
import { fetchReadiness } from './api-client';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  const t = messages();
  const readiness = await fetchReadiness();
  const status = !readiness
    ? t.apiUnreachable
    : readiness.status === 'ready'
      ? t.ready
      : `${t.notReady}${readiness.failing.join(', ')}`;
  return (
    <main>
      <h1>{t.appName}</h1>
      <p>{t.tagline}</p>
      <p>
        {t.serviceStatus}: <strong data-testid="service-status">{status}</strong>
      </p>
    </main>
  );
}
