import type { Principal } from '../auth/principal.js';
import type { TestUser } from '../../../../test/support/index.js';

/**
 * The principal the auth guard puts on a signed-in user's requests: for calling a service the way a
 * controller would, next to the HTTP calls that go through the real guard.
 */
export function sessionPrincipalOf(user: TestUser): Principal {
  return { userId: user.userId, email: user.email, displayName: user.displayName, isAdmin: false, via: 'session' };
}
