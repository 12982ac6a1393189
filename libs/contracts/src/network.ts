import { z } from 'zod';

// A computer's network: the one notion every pool driver implements. A computer's programs (its desktops,
// browsers and the agent's shell) have no route anywhere but to the egress proxy, which enforces this policy
// for every connection they open. The local driver gives each screen a network namespace of its own with
// the proxy's entry on its loopback; a cluster driver puts the same policy in front of its pods.

/** Where the egress proxy answers inside every screen's network namespace (each has its own loopback). */
export const EGRESS_PROXY_PORT = 3128;
export const EGRESS_PROXY_URL = `http://127.0.0.1:${EGRESS_PROXY_PORT}`;

/** One entry of the allow-list: a host name, matching itself and every name below it. */
const domainPattern = z
  .string()
  .trim()
  .toLowerCase()
  .transform((s) => s.replace(/^\*\./, '').replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .max(253)
      .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, {
        message: 'must be a host name such as example.com',
      }),
  );

export const egressPolicySchema = z.object({
  /** The LAN's private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7): a home server's other apps. */
  privateNetworks: z.enum(['deny', 'allow']),
  /** When set, only these hosts (and the names below them); otherwise any public host. */
  allowedDomains: z.array(domainPattern).nullable(),
});
export type EgressPolicy = z.infer<typeof egressPolicySchema>;

export const DEFAULT_EGRESS_POLICY: EgressPolicy = { privateNetworks: 'deny', allowedDomains: null };

/** `LAZYBOY_EGRESS_ALLOWED_DOMAINS`: comma-separated; empty means any public host. */
export const allowedDomainsEnv = z
  .string()
  .optional()
  .transform((text, ctx): string[] | null => {
    const entries = (text ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries.length === 0) return null;
    const parsed = z.array(domainPattern).safeParse(entries);
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: 'custom', message: `not a host name list: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
    return z.NEVER;
  })
  .describe('Comma-separated host names computers may reach (each with the names below it); empty: any public host');

export const privateNetworksEnv = z
  .enum(['deny', 'allow'])
  .default('deny')
  .describe("Whether computers may reach the LAN's private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)");

/** Why a connection was refused; written to the refusal log. */
export const EGRESS_REFUSAL_REASONS = [
  'loopback',
  'link-local',
  'unspecified',
  'multicast',
  'reserved',
  'this-host',
  'private-network',
  'domain-not-allowed',
  'unresolvable',
  'bad-request',
] as const;
export type EgressRefusalReason = (typeof EGRESS_REFUSAL_REASONS)[number];
