import { Prisma } from './generated/client.js';

/** Prisma's unique-constraint violation (P2002): the row a create or update would write already exists. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
