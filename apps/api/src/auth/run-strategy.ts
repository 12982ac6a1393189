import passport from 'passport';
import type { Request, Response } from 'express';
import type { Principal } from './principal.js';

/**
 * Runs one passport strategy instance on a request and resolves with its user (false when it failed
 * without an error; errors reject). Strategies are passed as instances, not by a name registered on the
 * process-wide passport object, so two apps in one process (tests, replicas) never use each other's.
 */
export function runStrategy(strategy: passport.Strategy, req: Request, res: Response): Promise<Principal | false> {
  return new Promise((resolve, reject) => {
    // Passport hangs success/fail/error of this request on the instance it is given: a fresh object per
    // request (inheriting from the strategy, as passport itself does for named ones) keeps concurrent
    // requests from answering each other's callbacks.
    const perRequest = Object.create(strategy) as passport.Strategy;
    const middleware = passport.authenticate(
      perRequest,
      { session: false },
      (error: unknown, user: Principal | false | undefined) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(user ?? false);
      },
    ) as (req: Request, res: Response, next: (error?: unknown) => void) => void;
    middleware(req, res, (error?: unknown) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(false),
    );
  });
}

/** The strategies register themselves on this throwaway instance instead of the process-wide one (see above). */
export function privatePassport(): passport.Authenticator {
  return new passport.Passport();
}
