import { z } from 'zod';

// Building blocks of the HTTP API's request and response bodies.

export const idSchema = z.uuid();
/** A sign-in email: trimmed and lower-cased, so accounts are found whatever case was typed. */
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((s) => s.toLowerCase());
/** Timestamps travel as ISO-8601 strings. */
export const isoDateSchema = z.iso.datetime({ offset: true });

/** Cursor pagination: `before` is the id of the oldest item of the previous page. */
export const pageQuerySchema = z.strictObject({
  before: idSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    /** Pass as `before` to get the next (older) page; null when this is the last one. */
    nextBefore: idSchema.nullable(),
  });
}
