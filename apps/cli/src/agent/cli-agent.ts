import os from 'node:os';
import path from 'node:path';
import { Runtime, type Checkpoint, type ToolDefinition, type ToolOutcome } from '@lazyboy/agent';
import { cliEnvSchema, parseEnv, withSeedAliases, type CliEnv } from '@lazyboy/contracts';
import { createModelClient, resolveModelBackend } from '@lazyboy/model';
import { LineInput } from '../human/line-input.js';
import { stdinBroker } from '../human/stdin-broker.js';
import { EventPrinter } from '../output/event-printer.js';
import { newSessionId, SessionStore } from '../sessions/session-store.js';
import { cliTools } from '../tools/cli-tools.js';
import { LocalBrowser } from '../tools/local-browser.js';
import { agentSystemPrompt } from './system-prompt.js';

export interface CliAgentOptions {
  /** Resume this session instead of starting a new one. */
  sessionId?: string;
  model?: string;
  baseUrl?: string;
  playbook?: string;
  /** Chat: no tools, plain answers. */
  chatOnly?: boolean;
  cwd?: string;
}

/** Everything one CLI session needs: settings, the runtime wired to this terminal, and its store. */
export interface CliAgent {
  env: CliEnv;
  runtime: Runtime;
  store: SessionStore;
  input: LineInput;
  printer: EventPrinter;
  /** The saved state to continue from (undefined for a new session). */
  resumeFrom: Checkpoint | undefined;
  /** Closes what the session opened (the browser), before the process exits. */
  close(): Promise<void>;
}

export function createCliAgent(rawEnv: NodeJS.ProcessEnv, options: CliAgentOptions): CliAgent {
  const merged = withSeedAliases({
    ...rawEnv,
    ...(options.model ? { LAZYBOY_MODEL: options.model } : {}),
    ...(options.baseUrl ? { LAZYBOY_MODEL_BASE_URL: options.baseUrl } : {}),
  });
  const env = parseEnv(cliEnvSchema, merged);
  const model = createModelClient(resolveModelBackend({ env: merged }));
  const home = env.LAZYBOY_HOME ?? path.join(os.homedir(), '.lazyboy');
  const store = new SessionStore(home, options.sessionId ?? newSessionId());
  const resumeFrom = options.sessionId ? store.load() : undefined;
  const cwd = options.cwd ?? process.cwd();
  const input = new LineInput();
  const err = (text: string) => void process.stderr.write(text);
  const printer = new EventPrinter({ out: (text) => void process.stdout.write(text), err, progress: env.LAZYBOY_PROGRESS });
  const browser = new LocalBrowser({
    executablePath: env.LAZYBOY_CHROMIUM,
    profileDir: path.join(home, 'browser-profile'),
    headed: env.LAZYBOY_BROWSER_HEADED,
    env: merged,
  });
  const computer = cliTools({
    cwd,
    logDir: store.workDir,
    timeoutMs: env.LAZYBOY_SHELL_TIMEOUT_MS,
    blockUntilMs: env.LAZYBOY_BLOCK_UNTIL_MS,
    browser,
  });
  const tools: ToolDefinition[] = options.chatOnly ? [] : computer.tools;
  const runtime = new Runtime({
    model,
    tools,
    human: stdinBroker(input, env, err),
    humanTools: {
      beforeHandoff: () => browser.makeHeaded(),
      // Through the browser tool itself, so that the numbers the model reads are the ones it sends next.
      afterHandoff: async (signal) => {
        const observed = await computer.browser.observe({ signal, callId: 'handoff' });
        return `Fresh observation after the hand-off:\n${textOf(observed.content)}`;
      },
    },
    systemPrompt: agentSystemPrompt({ cwd, now: new Date(), ...(options.playbook ? { playbook: options.playbook } : {}) }),
    limits: { roundsPerChunk: env.LAZYBOY_MAX_ROUNDS, roundsTotal: env.LAZYBOY_MAX_ROUNDS_TOTAL },
    chatOnly: options.chatOnly === true,
    checkpoints: store,
    subagents: !options.chatOnly,
  });
  runtime.setEventHandler(printer.handle);
  return { env, runtime, store, input, printer, resumeFrom, close: () => browser.close() };
}

function textOf(content: ToolOutcome['content']): string {
  return typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
