import type { ContentPart } from '@lazyboy/contracts';
import type { ShellTransport } from '../tools/computer/transport.js';
import type { ToolDefinition, ToolOutcome } from '../tools/tool.js';
import type { RedactionStream, SecretRedactor } from './secret-redactor.js';

/** An outcome with every text (and every string of its checkpoint state) redacted; images are left as they are. */
export function redactOutcome(outcome: ToolOutcome, redactor: SecretRedactor): ToolOutcome {
  const content =
    typeof outcome.content === 'string'
      ? redactor.redact(outcome.content)
      : outcome.content.map((part): ContentPart => (part.type === 'text' ? { ...part, text: redactor.redact(part.text) } : part));
  return {
    ...outcome,
    content,
    ...(outcome.state ? { state: redactStrings(outcome.state, redactor) as Record<string, unknown> } : {}),
  };
}

function redactStrings(value: unknown, redactor: SecretRedactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redactor));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, redactor)]));
  }
  return value;
}

/**
 * The same tools, their results (and the results of the work they leave in the background) redacted
 * before the loop sees them: so before the model, the run's events and its checkpoints.
 */
export function redactingTools(tools: ToolDefinition[], redactor: SecretRedactor): ToolDefinition[] {
  return tools.map((tool) => ({
    ...tool,
    execute: async (args, context) => {
      const outcome = await tool.execute(args, {
        ...context,
        background: (description, work) =>
          context.background(
            description,
            work.then((done) => redactOutcome(done, redactor)),
          ),
      });
      return redactOutcome(outcome, redactor);
    },
  }));
}

/**
 * A shell transport whose output is redacted as it streams: a command's output arrives in pieces (what it
 * wrote since the last read), and a secret printed across two of them is held back until it is whole.
 */
export function redactingShellTransport(inner: ShellTransport, redactor: SecretRedactor): ShellTransport {
  const streams = new Map<number, RedactionStream>();
  const streamOf = (commandId: number) => {
    let stream = streams.get(commandId);
    if (!stream) streams.set(commandId, (stream = redactor.stream()));
    return stream;
  };
  return {
    async run(input, ctx) {
      const answer = await inner.run(input, ctx);
      if (!answer.ok || !answer.value.done) return answer;
      return { ok: true, value: { ...answer.value, outputTail: redactor.redact(answer.value.outputTail) } };
    },
    async output(commandId, ctx) {
      const answer = await inner.output(commandId, ctx);
      if (!answer.ok) return answer;
      const stream = streamOf(commandId);
      let text = stream.push(answer.value.text);
      if (!answer.value.running) {
        text += stream.end();
        streams.delete(commandId);
      }
      return { ok: true, value: { ...answer.value, text } };
    },
  };
}
