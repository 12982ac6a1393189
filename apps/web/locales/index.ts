import { en } from './en';
import { zhTW, type Messages } from './zh-TW';

export type { Messages };
export type Locale = 'zh-TW' | 'en';
export const DEFAULT_LOCALE: Locale = 'zh-TW';
export const LOCALES: readonly Locale[] = ['zh-TW', 'en'];
/** Read by the root layout on the server, so the first render is already in the chosen language. */
export const LOCALE_COOKIE = 'lazyboy_locale';

const catalogs: Record<Locale, Messages> = { 'zh-TW': zhTW, en };

export function messages(locale: Locale = DEFAULT_LOCALE): Messages {
  return catalogs[locale];
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The first language of an Accept-Language header the app speaks (Chinese in any script or region is
 * zh-TW, the only Chinese catalog); undefined when it names none. Order, not q-values: browsers list
 * languages by preference.
 */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | undefined {
  for (const part of (header ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase() ?? '';
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-TW';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return undefined;
}

/** Fills `{name}` placeholders of a catalog string; unknown placeholders stay visible, to be noticed. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
