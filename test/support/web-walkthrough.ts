import type { Page } from 'playwright-core';

// The first steps of a person in the web app, as the install suites (the chart on the test node, the
// compose stack) and the first-run suite take them: sign in on the login page, make an agent, open it.

/** From the app's root: the login page, signed in as `email`, landing past it. */
export async function signInThroughLoginPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.waitForURL('**/login');
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** A new agent named `name` from the sidebar's button, its conversation open. */
export async function createAgentFromSidebar(page: Page, name: string): Promise<void> {
  await page.getByTestId('new-agent-button').click();
  await page.getByTestId('new-agent-name').fill(name);
  await page.getByTestId('new-agent-submit').click();
  await page.waitForURL('**/agents/**');
}

/** Sends `text` from the conversation's composer (Enter). */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('composer').press('Enter');
}
