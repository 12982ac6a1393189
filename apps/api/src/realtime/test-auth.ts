import {
  Global,
  Injectable,
  Module,
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  type Type,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { parseCookie } from 'cookie';
import type { Request } from 'express';
import { randomBytes, randomUUID } from 'node:crypto';
import { PUBLIC_ROUTE, SESSION_COOKIE, SessionAuthenticator, type Principal } from '../auth/principal.js';
import { ApiError } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { PersistenceModule } from '../persistence/persistence.module.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { RedisModule } from '../redis/redis.module.js';
import { TenancyCoreModule } from '../tenancy/tenancy-core.module.js';

// TEST ONLY. A stand-in for the auth module while it is built in parallel: session cookies map to
// principals held in memory, shared by every app instance of a suite. Persistence, Redis and tenancy
// are the real ones.

export class TestSessions {
  private readonly byToken = new Map<string, Principal>();

  /** A Cookie header value that authenticates as the principal. */
  cookieFor(principal: Principal): string {
    const token = randomBytes(16).toString('hex');
    this.byToken.set(token, principal);
    return `${SESSION_COOKIE}=${token}`;
  }

  fromCookieHeader(header: string | undefined): Principal | null {
    const token = header ? parseCookie(header)[SESSION_COOKIE] : undefined;
    return (token && this.byToken.get(token)) || null;
  }
}

@Injectable()
class TestSessionAuthenticator extends SessionAuthenticator {
  constructor(private readonly sessions: TestSessions) {
    super();
  }

  async fromCookieHeader(cookieHeader: string | undefined): Promise<Principal | null> {
    return this.sessions.fromCookieHeader(cookieHeader);
  }
}

@Injectable()
class TestPrincipalGuard implements CanActivate {
  constructor(
    private readonly sessions: TestSessions,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    const principal = this.sessions.fromCookieHeader(request.headers.cookie);
    if (!principal) throw new ApiError('UNAUTHENTICATED', 'sign in first');
    request.user = principal;
    return true;
  }
}

@Global()
@Module({})
class TestAuthModule {
  static with(sessions: TestSessions): DynamicModule {
    return {
      module: TestAuthModule,
      providers: [
        { provide: TestSessions, useValue: sessions },
        { provide: SessionAuthenticator, useClass: TestSessionAuthenticator },
        { provide: APP_GUARD, useClass: TestPrincipalGuard },
      ],
      exports: [TestSessions, SessionAuthenticator],
    };
  }
}

@Global()
@Module({})
class TestConfigModule {
  static with(config: ApiConfig): DynamicModule {
    return { module: TestConfigModule, providers: [{ provide: API_CONFIG, useValue: config }], exports: [API_CONFIG] };
  }
}

const authModules = new WeakMap<TestSessions, DynamicModule>();

/** The auth stand-in (global: a guard setting req.user, and SessionAuthenticator), one module per session store. */
export function testAuthModule(sessions: TestSessions): DynamicModule {
  let module = authModules.get(sessions);
  if (!module) authModules.set(sessions, (module = TestAuthModule.with(sessions)));
  return module;
}

/** The core modules a feature module needs, with the in-memory auth stand-in. */
export function testCoreModules(config: ApiConfig, sessions: TestSessions): (DynamicModule | Type)[] {
  return [TestConfigModule.with(config), PersistenceModule, RedisModule, TenancyCoreModule, testAuthModule(sessions)];
}

export interface TestMember {
  principal: Principal;
  workspaceId: string;
  /** Cookie header value of a signed-in browser. */
  cookie: string;
}

/** A new user owning a new workspace (unique email and slug: the test database is shared). */
export async function createTestMember(prisma: PrismaService, sessions: TestSessions): Promise<TestMember> {
  const unique = randomUUID();
  const user = await prisma.user.create({ data: { email: `member-${unique}@test.invalid`, displayName: 'Member' } });
  const workspace = await prisma.workspace.create({
    data: { name: 'Test workspace', slug: `ws-${unique}`, memberships: { create: { userId: user.id, role: 'owner' } } },
  });
  const principal: Principal = {
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    isAdmin: false,
    via: 'session',
  };
  return { principal, workspaceId: workspace.id, cookie: sessions.cookieFor(principal) };
}
