import { randomBytes } from 'node:crypto';

const MAX_BASE_LENGTH = 40;

/**
 * The readable part of a workspace slug: ASCII letters and digits of the name joined by dashes.
 * Names without any (Chinese ones, emoji) fall back to `workspace`.
 */
export function slugBase(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE_LENGTH)
    .replace(/-+$/, '');
  return base || 'workspace';
}

/** A variant of the base for when it is taken: a short random suffix. */
export function slugWithSuffix(base: string): string {
  return `${base}-${randomBytes(3).toString('hex')}`;
}
