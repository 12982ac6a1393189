import type { MetadataRoute } from 'next';
import { messages } from '../locales';

/** The installable app (PWA). Named in the default locale: the manifest is fetched without the person's cookie. */
export default function manifest(): MetadataRoute.Manifest {
  const t = messages();
  return {
    name: t.appName,
    short_name: t.appName,
    description: t.tagline,
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#f6f5fb',
    theme_color: '#6d5efc',
    icons: [
      { src: '/icons/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
}
