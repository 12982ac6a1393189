import { stackEnvSchema, apiEnvSchema } from '@lazyboy/contracts';

function envLines(shape: Record<string, { description?: string | undefined }>): string {
  return Object.entries(shape)
    .map(([name, schema]) => `  ${name.padEnd(22)} ${schema.description ?? ''}`)
    .join('\n');
}

export const HELP = `lazyboy — self-hosted AI agents with a real Linux desktop

Usage:
  lazyboy up        start the whole product locally (Postgres, Redis, API, worker, web); Ctrl-C stops it
  lazyboy down      stop a running \`up\` (from another terminal); data is kept
  lazyboy status    show each component of the local stack and whether it answers
  lazyboy help      this text

Environment (local stack):
${envLines(stackEnvSchema.shape)}
  LAZYBOY_APP_TOKEN      first admin's password (generated and kept in the data directory when unset)
  LAZYBOY_ADMIN_EMAIL    ${apiEnvSchema.shape.LAZYBOY_ADMIN_EMAIL.description ?? ''}
`;
