// Benchmark of the agent runtime: its own overhead per round (everything but the model's HTTP call:
// tool dispatch, checkpoints, trimming, request building), driving a scripted model on loopback with a
// no-op tool; and the cost of trimming a 10,000-message history.
// Run with `npm run bench:agent-loop` after a build. Targets: overhead median ≤ 2 ms, trimming ≤ 20 ms.
import { defineTool, Runtime, trimForRequest, type Checkpoint } from '@lazyboy/agent';
import type { ChatMessage } from '@lazyboy/contracts';
import { createModelClient, ScriptedModelServer, scriptedBackend } from '@lazyboy/model';
import { z } from 'zod';
import { median, percentile } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const TRIM_REPS = Number(process.env.BENCH_TRIM_REPS ?? 30);

async function loopOverhead(): Promise<number[]> {
  let n = 0;
  const server = await ScriptedModelServer.start(() =>
    ++n <= ROUNDS
      ? { toolCalls: [{ name: 'noop', arguments: { i: n } }] }
      : { toolCalls: [{ name: 'report_done', arguments: { summary: 'done' } }] },
  );
  const noop = defineTool({
    name: 'noop',
    kind: 'read',
    description: 'does nothing',
    schema: z.object({ i: z.number() }),
    execute: async ({ i }) => ({ content: `ok ${i}` }),
  });
  const saved: Checkpoint[] = [];
  const runtime = new Runtime({
    model: createModelClient(scriptedBackend(server)),
    tools: [noop],
    human: { mode: 'turn-ending' },
    systemPrompt: 'benchmark',
    limits: { roundsPerChunk: 1_000, roundsTotal: ROUNDS + 10 },
    checkpoints: { save: async (c) => void saved.splice(0, saved.length, c) },
  });
  // Overhead of a round: from the model's answer to the next request going out.
  const overheads: number[] = [];
  let answeredAt = 0;
  runtime.setEventHandler((event) => {
    if (event.type === 'model_response') answeredAt = performance.now();
    if (event.type === 'model_request' && answeredAt > 0) overheads.push(performance.now() - answeredAt);
  });
  try {
    const { outcome } = await runtime.run({ message: 'benchmark' });
    if (outcome.status !== 'done') throw new Error(`benchmark run ended ${outcome.status}`);
  } finally {
    await server.close();
  }
  return overheads;
}

function longHistory(size: number): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let i = 0; history.length < size; i++) {
    if (i % 10 === 0) history.push({ role: 'user', content: `instruction ${i}: keep going, stay within the budget` });
    history.push({
      role: 'assistant',
      content: null,
      toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: `{"path":"/data/file-${i}.txt"}` }],
    });
    history.push({ role: 'tool', toolCallId: `c${i}`, content: `line of file ${i}\n`.repeat(40 + (i % 200)) });
  }
  return history.slice(0, size);
}

function trimming(): number[] {
  const history = longHistory(10_000);
  const times: number[] = [];
  for (let rep = 0; rep < TRIM_REPS; rep++) {
    const start = performance.now();
    const trimmed = trimForRequest(history, { maxChars: 400_000 });
    times.push(performance.now() - start);
    if (trimmed.length === history.length) throw new Error('the benchmark history should need trimming');
  }
  return times;
}

const overheads = await loopOverhead();
const trims = trimming();
console.log(
  `agent loop overhead per round (${overheads.length} rounds, scripted model on loopback, no-op tool): ` +
    `median ${median(overheads).toFixed(3)} ms, p95 ${percentile(overheads, 95).toFixed(3)} ms (target ≤ 2 ms)`,
);
console.log(
  `trimming a 10,000-message history (${TRIM_REPS} runs): median ${median(trims).toFixed(2)} ms, p95 ${percentile(trims, 95).toFixed(2)} ms (target ≤ 20 ms)`,
);
