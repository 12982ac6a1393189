import { Controller, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  loginRequestSchema,
  meViewSchema,
  signupPolicyViewSchema,
  signupRequestSchema,
  type LoginRequest,
  type MeView,
  type SignupPolicyView,
  type SignupRequest,
} from '@lazyboy/contracts';
import type { Request, Response } from 'express';
import { ApiRoute } from '../common/route-docs.js';
import { ZodBody } from '../common/zod-params.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { AuthService, type RequestOrigin, type StartedSession } from './auth.service.js';
import { clientIpOf } from './client-ip.js';
import { knownDeviceCookieHeader } from './known-device.js';
import { LocalAuthGuard } from './local-auth.guard.js';
import { CurrentPrincipal, Public, type Principal } from './principal.js';
import { clearSessionCookieHeader, setSessionCookieHeader } from './session-cookie.js';

const tag = 'auth';

@Controller('api/auth')
export class AuthController {
  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly auth: AuthService,
    private readonly instance: InstanceSettingsService,
  ) {}

  @Public()
  @Get('signup')
  @ApiRoute({ summary: 'Who may sign up on this server: invite, open or closed', response: signupPolicyViewSchema, tag })
  async signupPolicy(): Promise<SignupPolicyView> {
    return { signup: await this.instance.signupPolicy() };
  }

  @Public()
  @Post('signup')
  @ApiRoute({
    summary:
      'Create an account and sign in: through an invitation into its workspace, else (open sign-up only) with a personal workspace',
    response: meViewSchema,
    status: 201,
    tag,
  })
  async signup(
    @ZodBody(signupRequestSchema) body: SignupRequest,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MeView> {
    const { principal, session } = await this.auth.signup(body, originOf(req));
    this.setCookie(res, session);
    return this.auth.me(principal);
  }

  @Public()
  @Post('login')
  @HttpCode(200)
  @UseGuards(LocalAuthGuard)
  @ApiRoute({ summary: 'Sign in with email and password; sets the session cookie', response: meViewSchema, tag })
  async login(
    // Validated by LocalAuthGuard already; declared for the API document.
    @ZodBody(loginRequestSchema) _body: LoginRequest,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MeView> {
    this.setCookie(res, await this.auth.startSession(principal, originOf(req)));
    return this.auth.me(principal);
  }

  @Post('logout')
  @HttpCode(204)
  @ApiRoute({ summary: 'Sign out: ends this session and clears its cookie', status: 204, tag })
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.auth.logout(principal, originOf(req));
    res.append('Set-Cookie', clearSessionCookieHeader(this.config.LAZYBOY_SECURE_COOKIE));
  }

  @Get('me')
  @ApiRoute({ summary: 'Who is signed in, and their workspaces', response: meViewSchema, tag })
  me(@CurrentPrincipal() principal: Principal): Promise<MeView> {
    return this.auth.me(principal);
  }

  private setCookie(res: Response, session: StartedSession): void {
    const secure = this.config.LAZYBOY_SECURE_COOKIE;
    res.append('Set-Cookie', setSessionCookieHeader(session.cookie, { secure, maxAgeSeconds: session.maxAgeSeconds }));
    res.append('Set-Cookie', knownDeviceCookieHeader(session.knownDevice, secure));
  }
}

function originOf(req: Request): RequestOrigin {
  return { ip: clientIpOf(req), userAgent: req.headers['user-agent'] };
}
