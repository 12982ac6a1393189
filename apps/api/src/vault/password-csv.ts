import { parse } from 'csv-parse/sync';
import { createVaultAccountRequestSchema } from '@lazyboy/contracts';

// A password manager's CSV export. The columns are found by name, the way each exporter spells them:
// Chromium (name,url,username,password,note), Firefox (url,username,password,httpRealm,…), Bitwarden
// (login_uri,login_username,login_password,notes,…), 1Password (Title,Url,Username,Password,Notes,…).

const COLUMNS = {
  site: ['url', 'login_uri', 'website', 'origin'],
  username: ['username', 'login_username', 'login', 'email'],
  password: ['password', 'login_password'],
  notes: ['note', 'notes', 'extra'],
  totp: ['totp', 'login_totp', 'otpauth', 'one-time password'],
} as const;

export interface ImportedLogin {
  line: number;
  site: string;
  username: string;
  password: string;
  notes?: string;
  totp?: string;
}

export interface ParsedExport {
  logins: ImportedLogin[];
  skipped: { line: number; reason: string }[];
}

export class PasswordExportError extends Error {
  override readonly name = 'PasswordExportError';
}

/** The logins of an export; rows that are not a login (no URL, no password) are skipped with their line. */
export function parsePasswordExport(csv: string): ParsedExport {
  let rows: string[][];
  try {
    rows = parse(csv.replace(/^\uFEFF/, ''), { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
  } catch (error) {
    // csv-parse names the line, never a value.
    throw new PasswordExportError(`not a CSV file: ${(error as Error).message.split('\n')[0]}`);
  }
  const [header, ...body] = rows;
  if (!header) throw new PasswordExportError('the file is empty');
  const names = header.map((cell) => cell.trim().toLowerCase());
  const column = (kind: keyof typeof COLUMNS) => names.findIndex((name) => (COLUMNS[kind] as readonly string[]).includes(name));
  const at = {
    site: column('site'),
    username: column('username'),
    password: column('password'),
    notes: column('notes'),
    totp: column('totp'),
  };
  if (at.site < 0 || at.password < 0) {
    throw new PasswordExportError(
      'no url and password columns: export the passwords from the browser or password manager as CSV',
    );
  }
  const logins: ImportedLogin[] = [];
  const skipped: ParsedExport['skipped'] = [];
  body.forEach((row, index) => {
    const line = index + 2;
    const cell = (i: number) => (i >= 0 ? (row[i] ?? '').trim() : '');
    const notes = cell(at.notes);
    const totp = cell(at.totp);
    const checked = createVaultAccountRequestSchema.safeParse({
      site: cell(at.site),
      username: cell(at.username),
      password: at.password >= 0 ? (row[at.password] ?? '') : '',
      ...(notes ? { notes } : {}),
      ...(totp ? { totp } : {}),
    });
    if (!checked.success) {
      const issue = checked.error.issues[0];
      skipped.push({ line, reason: `${issue?.path.join('.') || 'row'}: ${issue?.message ?? 'not a login'}` });
      return;
    }
    const { site, username, password } = checked.data;
    logins.push({ line, site, username, password, ...(notes ? { notes } : {}), ...(totp ? { totp } : {}) });
  });
  return { logins, skipped };
}
