import { apiEnvSchema, cliEnvSchema, stackEnvSchema } from '@lazyboy/contracts';

function envLines(shape: Record<string, { description?: string | undefined }>): string {
  return Object.entries(shape)
    .map(([name, schema]) => `  ${name.padEnd(26)} ${schema.description ?? ''}`)
    .join('\n');
}

export const HELP = `lazyboy — self-hosted AI agents with a real Linux desktop

Usage:
  lazyboy chat [message]        streaming chat, no tools (interactive without a message)
  lazyboy run "task"            one task with tools, to the end: exit 0 done, 1 blocked or failed, 130 on Ctrl-C
  lazyboy agent                 an interactive agent: one turn per line; /stop or Ctrl-C interrupts a turn,
                                /session prints the id, /exit or /quit leaves; typing while it works steers it
  lazyboy smoke                 an offline self-check of the agent loop and tools (no API key, no input)
  lazyboy up                    start the whole product locally (Postgres, Redis, API, worker, web); Ctrl-C stops it
  lazyboy down                  stop a running \`up\` (from another terminal); data is kept
  lazyboy status                show each component of the local stack and whether it answers
  lazyboy vault rotate-key      a new vault key for the local stack: every stored secret re-sealed under it,
                                none unreadable meanwhile (a running API restarts once; its computers stop)
  lazyboy help                  this text

Options of chat, run and agent:
  --session <id>                continue a saved session (~/.lazyboy/sessions/<id>.json); otherwise a new one
  --model <name>                the model (overrides LAZYBOY_MODEL)
  --base-url <url>              an OpenAI-compatible endpoint (overrides LAZYBOY_MODEL_BASE_URL)
  --playbook <file>             a scenario playbook, given to the agent as guidance (run and agent)

Model (the first that applies): LAZYBOY_MODEL_PROVIDER (xai, openai-chat, openai-responses, local-gguf),
  LAZYBOY_MODEL, LAZYBOY_MODEL_BASE_URL, LAZYBOY_MODEL_PATH (a GGUF file, for local-gguf), XAI_API_KEY (selects xAI), OPENAI_API_KEY, OPENAI_BASE_URL,
  OPENAI_MODEL, XAI_MODEL. The seeds' GROKBOY_* names work as aliases of every LAZYBOY_* variable.

Agent settings:
${envLines(cliEnvSchema.shape)}

Local stack:
${envLines(stackEnvSchema.shape)}
  LAZYBOY_APP_TOKEN          first admin's password (generated and kept in the data directory when unset)
  LAZYBOY_ADMIN_EMAIL        ${apiEnvSchema.shape.LAZYBOY_ADMIN_EMAIL.description ?? ''}
  LAZYBOY_SIGNUP             ${apiEnvSchema.shape.LAZYBOY_SIGNUP.description ?? ''}
`;
