import { Prisma } from './generated/client.js';

/**
 * A unique-constraint violation: the row a create or update would write already exists. Prisma's model
 * queries say P2002; a plain-SQL query ($queryRaw) says P2010 with Postgres' own code, 23505.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === 'P2002') return true;
  if (error.code !== 'P2010') return false;
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: unknown; originalCode?: unknown } } | undefined)?.cause;
  return cause?.kind === 'UniqueConstraintViolation' || cause?.originalCode === '23505';
}

/** A unique violation of the named index or constraint, as plain-SQL queries report it (Postgres' own message). */
export function violatesUniqueIndex(error: unknown, name: string): boolean {
  if (!isUniqueViolation(error)) return false;
  const cause = (
    (error as Prisma.PrismaClientKnownRequestError).meta?.driverAdapterError as
      { cause?: { originalMessage?: unknown } } | undefined
  )?.cause;
  return typeof cause?.originalMessage === 'string' && cause.originalMessage.includes(`"${name}"`);
}
