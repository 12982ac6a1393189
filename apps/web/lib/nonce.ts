import { randomToken } from './random-token';

/** A fresh clientNonce for one chat message (the API accepts [A-Za-z0-9._:-], 8–100 characters). */
export function newClientNonce(): string {
  return `web-${randomToken(16)}`;
}
