import { defineTool, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { workerRoutes, type LoginFillRefusal, type LoginFillResponse } from '@lazyboy/contracts';
import { z } from 'zod';
import type { ScreenProvider } from './screen-provider.js';
import { callWorker } from './worker-call.js';

export const LIST_ACCOUNTS_TOOL = 'list_accounts';
export const USE_SAVED_LOGIN_TOOL = 'use_saved_login';

/** A saved login as the model may know it. */
export interface SavedAccount {
  id: string;
  site: string;
  username: string;
  hasTotp: boolean;
}

/** What a fill needs, opened from the vault for one call and dropped after it. */
export type OpenedLogin =
  { step: 'password'; site: string; username: string; password: string } | { step: 'totp'; site: string; code: string };

export type VaultStep = OpenedLogin['step'];

/** How a use ended, for the audit log (never a value). */
export interface VaultUse {
  accountId: string;
  site: string;
  step: VaultStep;
  outcome: 'submitted' | LoginFillRefusal | 'failed';
  pageSite?: string;
}

/**
 * The run's view of the vault: the accounts its agent may use and, for one call, an account's secrets.
 * Implemented by RunVaults (apps/api/src/vault); opening an account also adds its secrets to what the
 * run's redactor hides.
 */
export interface RunVault {
  accounts(): Promise<SavedAccount[]>;
  /** The account's login for the step; 'no_account' for an id the agent may not use, 'no_totp' without a TOTP secret. */
  open(accountId: string, step: VaultStep): Promise<OpenedLogin | 'no_account' | 'no_totp'>;
  recordUse(use: VaultUse): Promise<void>;
}

const listSchema = z.object({});
const useSchema = z.object({
  account: z.string().min(1).max(64).describe('the id of the account, from list_accounts'),
  step: z
    .enum(['password', 'totp'])
    .default('password')
    .describe('password (default): the username and password form; totp: the one-time code form of a 2FA step'),
});

/** The longest a fill may take: a two-page login waits for each page (the worker's own bounds are shorter). */
const FILL_TIMEOUT_MS = 60_000;

/**
 * list_accounts / use_saved_login: saved logins the model uses without reading them. The password and
 * the one-time code go from the vault to the worker's fill call and nowhere else; the result says what
 * happened on the page in words, never a value.
 */
export function vaultTools(vault: RunVault, screens: ScreenProvider): ToolDefinition[] {
  const list = defineTool({
    name: LIST_ACCOUNTS_TOOL,
    kind: 'read',
    description:
      'The saved logins you may use (id, site, username, whether a 2FA code is stored). You never see passwords: ' +
      "open the site's login page with the browser, then call use_saved_login with the account id.",
    schema: listSchema,
    execute: async () => {
      const accounts = await vault.accounts();
      if (accounts.length === 0) {
        return { content: "No saved logins. Ask the person to add one on the agent's vault page, or to log in on your screen." };
      }
      const lines = accounts.map((a) => `- ${a.id}: ${a.site} as ${a.username}${a.hasTotp ? ' (2FA code stored)' : ''}`);
      return { content: `Saved logins:\n${lines.join('\n')}` };
    },
  });
  const use = defineTool({
    name: USE_SAVED_LOGIN_TOOL,
    kind: 'browser',
    description:
      "Log in with a saved account on the browser's current page: fills the username and password (also when the " +
      'password comes on a second page) and submits. With step "totp", fills the current 2FA code instead. Open the ' +
      "login page first; the page must be on the account's site. Returns where the page went and any error it shows.",
    schema: useSchema,
    execute: async (args, ctx) => {
      const login = await vault.open(args.account, args.step);
      if (login === 'no_account') {
        return {
          content: `refused: there is no saved login "${args.account}" you may use; call list_accounts for the ids.`,
          isError: true,
        };
      }
      if (login === 'no_totp') {
        return {
          content: 'refused: this account has no 2FA secret stored. Ask the person for the code, or to enter it on your screen.',
          isError: true,
        };
      }
      const { step, site, ...values } = login;
      const answer = await callWorker(
        screens,
        {
          tool: USE_SAVED_LOGIN_TOOL,
          route: workerRoutes.loginFill,
          body: { step, site, ...values } as never,
          timeoutMs: FILL_TIMEOUT_MS,
        },
        ctx,
      );
      if (!answer.ok) {
        await vault.recordUse({ accountId: args.account, site, step, outcome: 'failed' });
        return answer.outcome;
      }
      const filled = answer.value;
      await vault.recordUse({
        accountId: args.account,
        site,
        step,
        outcome: filled.outcome === 'submitted' ? 'submitted' : (filled.refusal ?? 'failed'),
        pageSite: filled.pageSite,
      });
      return fillOutcome(filled, site, step);
    },
  });
  return [list, use];
}

/** The page after a fill, in words the model can act on. */
function fillOutcome(filled: LoginFillResponse, site: string, step: VaultStep): ToolOutcome {
  const page = `the page is now ${filled.url} ("${filled.title}")`;
  if (filled.outcome === 'refused') {
    const why: Record<LoginFillRefusal, string> = {
      wrong_site: `the current page is on ${filled.pageSite || 'no web site'}, not on ${site}: open the site's own login page and try again (never fill a login on another site)`,
      no_login_form: 'there is no login form on the current page: open the sign-in page first (look for "Sign in" / "Log in")',
      no_code_field: 'there is no field for a one-time code on the current page',
    };
    return { content: `refused: ${why[filled.refusal ?? 'no_login_form']}; ${page}.`, isError: true };
  }
  if (step === 'password' && !filled.filled.includes('password')) {
    // A two-step login whose second page never asked for a password: an unknown user, a sign-in by mailed
    // code, or single sign-on on another site (where the password is never typed).
    const error = filled.pageError ? ` The page shows an error: "${filled.pageError}".` : '';
    return {
      content: `Filled the username and submitted, but no password field came after it; ${page}.${error} Look at the page to see what it asks for.`,
    };
  }
  const what =
    step === 'totp' ? 'the 2FA code' : filled.filled.includes('username') ? 'the username and password' : 'the password';
  const pages = filled.pages > 1 ? ' (over two pages)' : '';
  const lines = [`Filled ${what}${pages} and submitted; ${page}.`];
  if (filled.pageError) lines.push(`The page shows an error: "${filled.pageError}".`);
  if (filled.asksForCode)
    lines.push('The page asks for a one-time code: call use_saved_login with step "totp" if the account has a 2FA code stored.');
  return { content: lines.join(' ') };
}
