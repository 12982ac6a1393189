import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { safeParseInput } from '@lazyboy/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import { ApiError } from './api-error.js';
import { recordRouteSchema } from './route-docs.js';

// Every external input passes a zod schema before a handler sees it. These parameter decorators validate
// the body, the query and path ids, answer 400 VALIDATION_FAILED naming each bad field, and record the
// schema for the OpenAPI document. Text that cannot be stored (NUL, unpaired surrogates) is refused the
// same way, anywhere in the input, by libs/contracts' safeParseInput.

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = safeParseInput(schema, value);
  if (result.success) return result.data;
  const { issues } = result;
  const first = issues[0];
  const message = first ? `invalid ${where}: ${first.path ? `${first.path}: ` : ''}${first.message}` : `invalid ${where}`;
  throw new ApiError('VALIDATION_FAILED', message, { issues });
}

// Nest takes a decorator argument that has a `transform` method for a pipe, and zod schemas have one:
// the schema travels wrapped, or the factory would receive undefined.
interface SchemaArg {
  zod: z.ZodType;
}

const bodyParam = createParamDecorator((arg: SchemaArg, ctx: ExecutionContext) =>
  parseInput(arg.zod, ctx.switchToHttp().getRequest<Request>().body ?? {}, 'body'),
);
const queryParam = createParamDecorator((arg: SchemaArg, ctx: ExecutionContext) =>
  parseInput(arg.zod, ctx.switchToHttp().getRequest<Request>().query, 'query'),
);
const idParam = createParamDecorator((name: string, ctx: ExecutionContext) => {
  const value = ctx.switchToHttp().getRequest<Request>().params[name];
  // A malformed id cannot name anything the caller may see: the same 404 as a foreign one.
  if (typeof value !== 'string' || !z.uuid().safeParse(value).success) throw new ApiError('NOT_FOUND', `${name} not found`);
  return value;
});

const secretParam = createParamDecorator((arg: SchemaArg & { name: string; what: string }, ctx: ExecutionContext) => {
  const value = ctx.switchToHttp().getRequest<Request>().params[arg.name];
  // Like a malformed id: a malformed secret names nothing, so it is the same 404 as an unknown one.
  if (typeof value !== 'string' || !arg.zod.safeParse(value).success) throw new ApiError('NOT_FOUND', `${arg.what} not found`);
  return value;
});

/** The request body, parsed by `schema`. */
export function ZodBody(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    if (key !== undefined) recordRouteSchema(target, key, 'body', schema);
    bodyParam({ zod: schema })(target, key, index);
  };
}

/** The query string, parsed by `schema` (use z.coerce for numbers). */
export function ZodQuery(schema: z.ZodType): ParameterDecorator {
  return (target, key, index) => {
    if (key !== undefined) recordRouteSchema(target, key, 'query', schema);
    queryParam({ zod: schema })(target, key, index);
  };
}

/** A UUID path parameter; anything else is a 404 like a foreign id. */
export function IdParam(name: string): ParameterDecorator {
  return idParam(name);
}

/**
 * A path parameter that is a secret (an invitation's token) of the shape `schema` says; anything else is
 * the 404 of an unknown `what`.
 */
export function SecretParam(name: string, schema: z.ZodType, what: string): ParameterDecorator {
  return secretParam({ name, zod: schema, what });
}
