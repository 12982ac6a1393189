import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The caller's address as Express sees it (trusting only a loopback proxy, see bootstrap.ts). */
export function clientIpOf(req: Request): string | undefined {
  return req.ip ?? req.socket.remoteAddress ?? undefined;
}

/** The caller's address, for the audit log and rate limits. */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  clientIpOf(ctx.switchToHttp().getRequest<Request>()),
);
