import { randomBytes } from 'node:crypto';
import { isUniqueViolation } from '../persistence/prisma-errors.js';

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

const SLUG_ATTEMPTS = 5;

/**
 * Runs `create` with a slug made from the name: the bare base when it looks free, a suffixed variant
 * otherwise, and another variant when `create` throws Prisma's unique violation (someone took the slug
 * between our check and our insert). `create` rethrowing something else ends the attempts.
 */
export async function createWithUniqueSlug<T>(
  name: string,
  slugTaken: (slug: string) => Promise<boolean>,
  create: (slug: string) => Promise<T>,
): Promise<T> {
  const base = slugBase(name);
  let slug = (await slugTaken(base)) ? slugWithSuffix(base) : base;
  for (let attempt = 1; ; attempt++) {
    try {
      return await create(slug);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= SLUG_ATTEMPTS) throw error;
      slug = slugWithSuffix(base);
    }
  }
}
