/**
 * Which fields the recorder treats as secret. For these only "the field was filled" is recorded, never the
 * value. The same rules run twice: inside the page (so a value never leaves it) and again on every event the
 * worker receives (so a page-side slip still cannot put a value into a recording).
 *
 * A field is secret when any of these holds:
 * 1. it is, or was at any moment, an `<input type="password">` (a "show password" toggle turns it into text);
 * 2. its autocomplete attribute contains one of SECRET_AUTOCOMPLETE;
 * 3. its name, id, aria-label, label text, placeholder or title, split into words (camelCase, snake_case and
 *    kebab-case are separated first), matches one of SECRET_NAME_PATTERNS.
 *
 * The list errs on the side of hiding: a "boarding pass" or "PIN code" field is hidden as well.
 */
export const SECRET_AUTOCOMPLETE: readonly string[] = [
  'current-password',
  'new-password',
  'one-time-code',
  'cc-number',
  'cc-csc',
];

/** Matched against the lower-cased, word-split text (see `fieldWords`). */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  // password, passwd, passcode, passphrase, pass, pwd, pin
  /\b(pass(word|wd|code|phrase)?|pwd|pin)\b/u,
  // one-time codes and second factors
  /\b(otp|totp|hotp|mfa|2fa|one ?time ?(code|password|pin)|verification ?code|auth(entication)? ?code|security ?code)\b/u,
  // credentials for programs
  /\b(token|secret|api ?key|private ?key|access ?key|client ?secret)\b/u,
  // payment cards
  /\b(cvv2?|cvc2?|csc|card ?(number|num|no)|cc ?(number|num|no)|ccnum|credit ?card)\b/u,
  // national identity numbers
  /\b(ssn|social ?security)\b/u,
  // the same in Chinese and Japanese (LazyBoy's users type these labels every day)
  /(密碼|密码|口令|パスワード|暗証|驗證碼|验证码|認證碼|认证码|安全碼|安全码|卡號|卡号)/u,
];

/** "userPassword" → "user password", "cc-number" → "cc number", "new_pass" → "new pass". */
export function fieldWords(text: string): string {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.:[\]/]+/g, ' ')
    .toLowerCase();
}

/** True when any of the texts naming a field (name, id, label, …) looks like it names a secret. */
export function namesSecret(...texts: Array<string | undefined>): boolean {
  return texts.some((text) => !!text && SECRET_NAME_PATTERNS.some((pattern) => pattern.test(fieldWords(text))));
}

/**
 * The address with the values of secret-looking query parameters blanked: a GET login form or a magic link
 * would otherwise carry the secret in a navigation's URL.
 */
export function scrubUrl(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return address;
  }
  let changed = false;
  for (const key of new Set(url.searchParams.keys())) {
    if (namesSecret(key)) {
      url.searchParams.set(key, '(not recorded)');
      changed = true;
    }
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    changed = true;
  }
  return changed ? url.toString() : address;
}
