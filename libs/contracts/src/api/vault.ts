import { z } from 'zod';
import { VAULT_SECRET_MAX } from '../worker-api.js';
import { idSchema, isoDateSchema } from './common.js';

// The vault: saved logins an agent can use without the model ever reading them. People write passwords,
// TOTP secrets and notes; only an owner who re-enters their own password reads them back. The model sees
// an account's id, site and username, and whether a TOTP secret is stored.

/** Accounts one agent (or one workspace's shared set) may hold. */
export const VAULT_ACCOUNTS_MAX = 500;
/** The longest password-manager CSV export taken (under the API's 1 MB body limit: some 4,000 logins). */
export const VAULT_IMPORT_MAX_BYTES = 900_000;
export const VAULT_NOTES_MAX = 4_000;
export const VAULT_LABEL_MAX = 120;

/**
 * A site as people type it: a URL (`https://github.com/login`) or a bare host (`github.com`, taken as
 * https). Kept as the origin; other schemes, credentials and hosts that are not hosts are refused.
 */
export const vaultSiteSchema = z
  .string()
  .trim()
  .min(1)
  .max(2_048)
  .transform((value, ctx) => {
    const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a web address (e.g. https://example.com)' });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'only http and https sites can hold a login' });
      return z.NEVER;
    }
    if (url.username || url.password || url.hostname === '' || !/^[a-z0-9.[\]:-]+$/i.test(url.hostname)) {
      ctx.addIssue({ code: 'custom', message: 'not a web address (e.g. https://example.com)' });
      return z.NEVER;
    }
    return url.origin;
  });

/** A secret people type: text within VAULT_SECRET_MAX, no control characters but tab. */
const secretText = z
  .string()
  .min(1)
  .max(VAULT_SECRET_MAX)
  .refine((value) => ![...value].some((c) => (c < ' ' && c !== '\t') || c === '\u007f'), 'no control characters');

/**
 * A TOTP secret: its base32 (spaces and dashes allowed, as sites print it) or the whole `otpauth://totp/…`
 * URI a QR code holds. The API decodes it and refuses what is not a TOTP (400 naming `totp`).
 */
export const totpInputSchema = z.string().trim().min(1).max(VAULT_SECRET_MAX);

export const createVaultAccountRequestSchema = z.strictObject({
  site: vaultSiteSchema,
  username: secretText,
  password: secretText,
  totp: totpInputSchema.optional(),
  label: z.string().trim().max(VAULT_LABEL_MAX).optional(),
  notes: z.string().max(VAULT_NOTES_MAX).optional(),
});
export type CreateVaultAccountRequest = z.input<typeof createVaultAccountRequestSchema>;

/** Absent fields stay; `totp: null` removes the stored secret, `notes: ''` the notes. */
export const updateVaultAccountRequestSchema = z
  .strictObject({
    site: vaultSiteSchema.optional(),
    username: secretText.optional(),
    password: secretText.optional(),
    totp: totpInputSchema.nullable().optional(),
    label: z.string().trim().max(VAULT_LABEL_MAX).optional(),
    notes: z.string().max(VAULT_NOTES_MAX).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'nothing to change');
export type UpdateVaultAccountRequest = z.input<typeof updateVaultAccountRequestSchema>;

/** An account as people list it: never its password or TOTP secret. */
export const vaultAccountViewSchema = z.object({
  id: idSchema,
  workspaceId: idSchema,
  /** Null for a shared account of the workspace. */
  agentId: idSchema.nullable(),
  site: z.string(),
  username: z.string(),
  label: z.string(),
  hasTotp: z.boolean(),
  /** The notes, for people who may see the account (never sent to the model). */
  notes: z.string(),
  /** A shared account: the agents of the workspace that may use it. */
  agentIds: z.array(idSchema),
  lastUsedAt: isoDateSchema.nullable(),
  createdAt: isoDateSchema,
  updatedAt: isoDateSchema,
});
export type VaultAccountView = z.infer<typeof vaultAccountViewSchema>;

/** An agent's vault page: its own accounts and the shared ones it may use. */
export const agentVaultViewSchema = z.object({
  own: z.array(vaultAccountViewSchema),
  shared: z.array(vaultAccountViewSchema),
});
export type AgentVaultView = z.infer<typeof agentVaultViewSchema>;

/** Which agents may use a shared account (replaces the list; agents of the same workspace only). */
export const vaultGrantsRequestSchema = z.strictObject({ agentIds: z.array(idSchema).max(VAULT_ACCOUNTS_MAX) });
export type VaultGrantsRequest = z.infer<typeof vaultGrantsRequestSchema>;

/** An owner reads a stored secret back after proving it is them: their own sign-in password. */
export const vaultRevealRequestSchema = z.strictObject({ password: z.string().min(1).max(1_024) });
export type VaultRevealRequest = z.infer<typeof vaultRevealRequestSchema>;

export const vaultRevealViewSchema = z.object({
  password: z.string(),
  /** The TOTP secret as base32; null when none is stored. */
  totpSecret: z.string().nullable(),
});
export type VaultRevealView = z.infer<typeof vaultRevealViewSchema>;

/** The current one-time code, for a person completing a sign-in by hand. */
export const vaultTotpCodeViewSchema = z.object({
  code: z.string(),
  /** Seconds until the code changes. */
  expiresInSeconds: z.number().int().min(0),
});
export type VaultTotpCodeView = z.infer<typeof vaultTotpCodeViewSchema>;

/** A browser's password export (Chromium's, Firefox's, Bitwarden's and 1Password's CSV columns are read). */
export const vaultImportRequestSchema = z.strictObject({
  csv: z.string().min(1).max(VAULT_IMPORT_MAX_BYTES),
});
export type VaultImportRequest = z.infer<typeof vaultImportRequestSchema>;

export const vaultImportResultSchema = z.object({
  imported: z.number().int().min(0),
  /** Rows already saved with the same site and username: left as they are. */
  duplicates: z.number().int().min(0),
  /** Rows that could not be read, with their line numbers and why (never their values). */
  skipped: z.array(z.object({ line: z.number().int().min(1), reason: z.string() })),
});
export type VaultImportResult = z.infer<typeof vaultImportResultSchema>;

/** What a re-seal under the current vault key did. */
export const vaultResealReportSchema = z.object({
  /** Secrets sealed under an old key, now under the current one. */
  resealed: z.number().int().min(0),
  /** Secrets already under the current key. */
  current: z.number().int().min(0),
  /** Secrets no key of this server opens (left as they are). */
  unreadable: z.number().int().min(0),
  /** How many old keys the server was given (LAZYBOY_VAULT_OLD_KEYS). */
  oldKeys: z.number().int().min(0),
});
export type VaultResealReport = z.infer<typeof vaultResealReportSchema>;
