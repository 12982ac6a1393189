/// <reference lib="dom" />
// Runs inside one frame (passed to evaluate as a function, so it must not close over anything): finds the
// fields of a login form, a one-time-code form, and the error a page shows. It never reads a field's value
// out of the page, and the values to type never come in: the worker types them over CDP itself.

/** What the worker asks a frame. */
export type LoginPageQuery =
  /** The login form: its password field (current-password only), username field and submit button. */
  | { op: 'login' }
  /** The one-time-code field, or a row of single-digit boxes, and its submit button. */
  | { op: 'code' }
  /** After a username was submitted: whether a password or code field (or a new error) has appeared. */
  | { op: 'next-step'; errorBefore: string | null }
  /** The error the page shows and whether it asks for a one-time code. */
  | { op: 'report' };

/** Elements found by `login` and `code`; the worker keeps only handles to them, for one call. */
export interface FoundFields {
  /** Where the fields are: the frame's document and its ancestors' origins, checked again by the worker. */
  href: string;
  ancestors: string[];
  password: HTMLInputElement | null;
  username: HTMLInputElement | null;
  /** One field, or the boxes of a split code in order. */
  codes: HTMLInputElement[];
  submit: HTMLElement | null;
  /** The page has password fields, but only for a new password (sign-up, change password). */
  newPasswordOnly: boolean;
}

export interface PageReport {
  /** The visible error text (alerts, invalid fields' messages, "error" elements), cut to 2,000 characters. */
  error: string | null;
  asksForCode: boolean;
}

export function inspectLoginPage(query: LoginPageQuery): FoundFields | PageReport | boolean {
  // Cut to 300 by the worker once the values are scrubbed out: a cut here could split one and leave its start.
  const ERROR_MAX = 2_000;
  const USERNAME =
    /\b(user ?name|user ?id|user|login ?id|login|log ?in|sign ?in|e ?mail|mail|account|acct|member|customer|phone|mobile)\b|帳號|帳户|帐号|账号|賬號|使用者|用戶|用户|電子郵件|电子邮件|郵件|邮件|郵箱|邮箱|信箱|手機|手机|メール|ユーザー|アカウント|ログイン|아이디|이메일/u;
  const PASSWORD_WORDS = /\b(pass ?word|passwd|pwd|pass)\b|密碼|密码|パスワード|비밀번호/u;
  const NEW_PASSWORD =
    /\b(new|confirm|confirmation|repeat|retype|re ?enter|again)\b|確認|确认|再次|重複|重复|新密碼|新密码|もう一度|新しい/u;
  const CODE =
    /\b(otp|totp|hotp|mfa|2fa|tfa|one ?time|code|verification|authenticator)\b|驗證碼|验证码|認證碼|认证码|安全碼|安全码|動態密碼|动态密码|確認コード|認証コード|ワンタイム|인증/u;
  const NOT_CODE =
    /\b(postal|post|zip|country|area|dial|promo|promotion|coupon|discount|voucher|referral|invite|invitation|gift|captcha|qr)\b|郵遞區號|邮编|郵便|優惠|优惠|驗證圖|图形/u;
  const SEARCH = /\b(search|query|q|keyword|keywords)\b|搜尋|搜索|検索/u;
  const LOGIN_BUTTON =
    /\b(sign ?in|log ?in|login|signin|log ?on|next|continue|submit|verify|confirm|go|ok)\b|登入|登录|登錄|下一步|繼續|继续|確認|确认|驗證|验证|送出|提交|確定|确定|ログイン|サインイン|次へ|続行|続ける|認証|로그인|다음/u;
  const NOT_SUBMIT =
    /\b(sign ?up|register|create|forgot|reset|cancel|back|show|hide|reveal|google|apple|facebook|microsoft|github|twitter|line|passkey|sso|qr)\b|註冊|注册|忘記|忘记|取消|返回|顯示|显示|隱藏|隐藏|新規|登録|忘れ|キャンセル|戻る/u;
  const TEXT_TYPES = ['text', 'email', 'tel', 'number', 'url'];

  /** "userName" → "user name", "otp_code" → "otp code": the patterns match words. */
  const words = (text: string): string =>
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/[_\-.:[\]/]+/g, ' ')
      .toLowerCase();

  const visible = (el: Element): boolean => {
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) return false;
    // A honeypot: a field moved off the page to catch bots that fill every field.
    if (rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) return false;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    return !el.closest('[aria-hidden="true"], [inert]');
  };
  // A read-only password field may still be the one: some sites unlock it on focus to keep autofill out.
  const usable = (el: HTMLInputElement, readOnlyToo = false): boolean =>
    !el.disabled && (readOnlyToo || !el.readOnly) && visible(el);
  const tokens = (el: HTMLInputElement): string[] => (el.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/);
  const nameText = (el: HTMLInputElement): string => {
    const parts = [el.name, el.id, el.placeholder, el.title, el.getAttribute('aria-label') ?? ''];
    for (const label of Array.from(el.labels ?? [])) parts.push(label.textContent ?? '');
    for (const id of (el.getAttribute('aria-labelledby') ?? '').split(/\s+/)) {
      if (id) parts.push(document.getElementById(id)?.textContent ?? '');
    }
    return words(parts.join(' '));
  };
  const inputs = (): HTMLInputElement[] => Array.from(document.querySelectorAll('input'));
  const isSearch = (el: HTMLInputElement): boolean =>
    el.type === 'search' || !!el.closest('[role="search"]') || SEARCH.test(words(`${el.name} ${el.id}`));

  const isCodeField = (el: HTMLInputElement): boolean => {
    if (!TEXT_TYPES.includes(el.type) && el.type !== 'password') return false;
    if (tokens(el).includes('one-time-code')) return true;
    const named = nameText(el);
    if (CODE.test(named) && !NOT_CODE.test(named) && !PASSWORD_WORDS.test(named)) return true;
    const length = el.maxLength;
    return el.type !== 'password' && el.inputMode === 'numeric' && length >= 6 && length <= 8;
  };

  const isPasswordField = (el: HTMLInputElement): boolean => {
    if (el.type !== 'password' && !tokens(el).includes('current-password')) return false;
    if (tokens(el).includes('one-time-code')) return false;
    // A code field some site made type=password ("otp", "verification code") is not the password.
    const named = nameText(el);
    return !(CODE.test(named) && !NOT_CODE.test(named) && !PASSWORD_WORDS.test(named));
  };

  /** The current-password field to fill, or none; `newOnly` when the only ones are for a new password. */
  const choosePassword = (): { field: HTMLInputElement | null; newOnly: boolean } => {
    const groups = new Map<HTMLFormElement | null, HTMLInputElement[]>();
    for (const el of inputs()) {
      if (!isPasswordField(el) || !usable(el, true)) continue;
      const group = groups.get(el.form) ?? [];
      group.push(el);
      groups.set(el.form, group);
    }
    let newOnly = false;
    for (const fields of groups.values()) {
      const current = fields.find((f) => tokens(f).includes('current-password'));
      if (current) return { field: current, newOnly: false };
      // Two password fields and no "current" among them: a sign-up or change-password form, not a login.
      const plain = fields.filter((f) => !tokens(f).includes('new-password') && !NEW_PASSWORD.test(nameText(f)));
      if (fields.length === 1 && plain.length === 1) return { field: plain[0]!, newOnly: false };
      newOnly = true;
    }
    return { field: null, newOnly };
  };

  const textCandidates = (scope: HTMLInputElement[]): HTMLInputElement[] =>
    scope.filter((el) => TEXT_TYPES.includes(el.type) && usable(el) && !isSearch(el) && !isCodeField(el));
  const strongUsername = (candidates: HTMLInputElement[]): HTMLInputElement | undefined =>
    candidates.find((el) => tokens(el).some((t) => t === 'username' || t === 'email')) ??
    candidates.find((el) => el.type === 'email') ??
    candidates.find((el) => USERNAME.test(nameText(el)));

  /** The username field of the password's form: named as one, else the nearest text field before it. */
  const usernameFor = (password: HTMLInputElement): HTMLInputElement | null => {
    const form = password.form;
    const scope = form
      ? Array.from(form.elements).filter((el): el is HTMLInputElement => el instanceof HTMLInputElement)
      : inputs();
    const before = textCandidates(scope).filter(
      (el) => !!(el.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING),
    );
    const named = strongUsername(before) ?? strongUsername(textCandidates(scope));
    if (named) return named;
    const nearest = before.at(-1);
    if (!nearest) return null;
    // Without a form, "the field before it" must at least share a box with it below the page's body.
    if (!form) {
      let common: Element | null = nearest.parentElement;
      while (common && !common.contains(password)) common = common.parentElement;
      if (!common || common === document.body || common === document.documentElement) return null;
    }
    return nearest;
  };

  const buttonText = (el: Element): string => {
    const text = (el as HTMLElement).innerText || (el as HTMLInputElement).value || '';
    return words(`${text} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''}`);
  };
  const enabledButton = (el: Element): boolean =>
    !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true' && visible(el);
  const isSubmitType = (el: Element): boolean =>
    (el instanceof HTMLButtonElement && el.type === 'submit') ||
    (el instanceof HTMLInputElement && (el.type === 'submit' || el.type === 'image'));

  /** The button that submits `field`'s form: a submit button saying "sign in"/"next", any submit button, any such button. */
  const submitFor = (field: HTMLInputElement): HTMLElement | null => {
    const BUTTONS = 'button, input[type=submit], input[type=image], input[type=button], [role=button]';
    const form = field.form;
    const pool = form
      ? [...Array.from(form.elements).filter((el) => el.matches(BUTTONS)), ...Array.from(form.querySelectorAll('[role=button]'))]
      : Array.from(document.querySelectorAll(BUTTONS));
    const buttons = pool.filter((el) => enabledButton(el) && !NOT_SUBMIT.test(buttonText(el))) as HTMLElement[];
    const worded = (el: Element) => LOGIN_BUTTON.test(buttonText(el));
    const after = (el: Element) => !!(field.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    if (form) {
      return (
        buttons.find((el) => isSubmitType(el) && worded(el)) ??
        buttons.find((el) => isSubmitType(el)) ??
        buttons.find(worded) ??
        null
      );
    }
    // No form: a script handles the click, and only the words say which button signs in.
    return buttons.find((el) => worded(el) && after(el)) ?? buttons.find(worded) ?? null;
  };

  /** A single code field, else a row of four to eight single-character boxes. */
  const codeFields = (): HTMLInputElement[] => {
    const usableInputs = inputs().filter((el) => usable(el));
    const single = usableInputs.find((el) => el.maxLength !== 1 && isCodeField(el));
    if (single) return [single];
    const boxes = usableInputs.filter((el) => el.maxLength === 1 && (TEXT_TYPES.includes(el.type) || el.type === 'password'));
    for (const first of boxes) {
      let row: Element | null = first.parentElement;
      for (let depth = 0; row && depth < 3; depth++, row = row.parentElement) {
        const inRow = boxes.filter((el) => row!.contains(el));
        if (inRow.length >= 4 && inRow.length <= 8) return inRow;
        if (inRow.length > 8) break;
      }
    }
    return [];
  };

  const errorText = (): string | null => {
    const pieces: string[] = [];
    const add = (el: Element | null) => {
      if (!el || !visible(el)) return;
      const text = ((el as HTMLElement).innerText ?? el.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text && !pieces.some((p) => p.includes(text))) pieces.push(text);
    };
    document.querySelectorAll('[role=alert], [aria-live=assertive]').forEach(add);
    document.querySelectorAll('[aria-invalid=true]').forEach((field) => {
      const ids = `${field.getAttribute('aria-describedby') ?? ''} ${field.getAttribute('aria-errormessage') ?? ''}`;
      for (const id of ids.split(/\s+/)) if (id) add(document.getElementById(id));
    });
    // Elements named "error": the innermost ones, and not a field's whole box (its label would come along).
    const named = Array.from(
      document.querySelectorAll('[class*="error" i], [id*="error" i], [class*="invalid-feedback" i], [class*="alert-danger" i]'),
    );
    for (const el of named) {
      if (el.querySelector('input, select, textarea, button, form')) continue;
      if (named.some((other) => other !== el && el.contains(other))) continue;
      add(el);
    }
    const text = pieces.join(' ').trim();
    if (!text) return null;
    return text.length > ERROR_MAX ? `${text.slice(0, ERROR_MAX - 1)}…` : text;
  };

  /** A username-only form's button must say "sign in" or "next": a newsletter's "Subscribe" is no login. */
  const signsIn = (field: HTMLInputElement): boolean => {
    const button = submitFor(field);
    return !!button && LOGIN_BUTTON.test(buttonText(button));
  };

  const where = { href: location.href, ancestors: Array.from(location.ancestorOrigins ?? []) };
  switch (query.op) {
    case 'login': {
      const { field: password, newOnly } = choosePassword();
      let username = password ? usernameFor(password) : null;
      if (!password && !newOnly) {
        // A first page that asks for the username alone: only a field named as one, in a form that signs in.
        username =
          strongUsername(textCandidates(inputs()).filter((el) => tokens(el).includes('username') || signsIn(el))) ?? null;
      }
      const last = password ?? username;
      return {
        ...where,
        password,
        username,
        codes: [],
        submit: last ? submitFor(last) : null,
        newPasswordOnly: !password && newOnly,
      };
    }
    case 'code': {
      const codes = codeFields();
      const last = codes.at(-1);
      return { ...where, password: null, username: null, codes, submit: last ? submitFor(last) : null, newPasswordOnly: false };
    }
    case 'next-step': {
      if (choosePassword().field || codeFields().length > 0) return true;
      const error = errorText();
      return error !== null && error !== query.errorBefore;
    }
    case 'report':
      return { error: errorText(), asksForCode: codeFields().length > 0 };
  }
}
