import { chromium, type Browser, type BrowserContext } from 'playwright-core';

// The machine's own Chromium for the browser tests and benches (nothing is downloaded), and what they do
// with it alike.

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    // Root cannot use Chromium's sandbox.
    chromiumSandbox: process.getuid?.() !== 0,
    args: ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-quic'],
  });
}

/** Signs a browser profile in on the web app with an API session cookie (`name=value`). */
export async function addSessionCookie(context: BrowserContext, cookie: string, webUrl: string): Promise<void> {
  const [name, ...value] = cookie.split('=');
  await context.addCookies([{ name: name!, value: value.join('='), url: webUrl }]);
}
