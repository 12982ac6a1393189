import { describe, expect, it } from '@jest/globals';
import { emptyCheckpoint, NOT_STARTED, recoverCheckpoint, UNKNOWN_OUTCOME } from './checkpoint.js';

describe('recoverCheckpoint', () => {
  it('gives the interrupted call an explicit unknown outcome and the unstarted ones a not-run result', () => {
    const checkpoint = {
      ...emptyCheckpoint(),
      history: [
        { role: 'user' as const, content: 'deploy it' },
        {
          role: 'assistant' as const,
          content: null,
          toolCalls: [
            { id: 'a', name: 'shell', arguments: '{"command":"make build"}' },
            { id: 'b', name: 'shell', arguments: '{"command":"make deploy"}' },
            { id: 'c', name: 'shell', arguments: '{"command":"make notify"}' },
          ],
        },
        { role: 'tool' as const, toolCallId: 'a', content: 'built' },
      ],
      inflight: { callId: 'b', name: 'shell', arguments: '{"command":"make deploy"}', startedAt: 1 },
    };
    const recovered = recoverCheckpoint(checkpoint);
    expect(recovered.inflight).toBeNull();
    expect(recovered.history.slice(3)).toEqual([
      { role: 'tool', toolCallId: 'b', content: UNKNOWN_OUTCOME('shell') },
      { role: 'tool', toolCallId: 'c', content: NOT_STARTED },
    ]);
    // The original is untouched.
    expect(checkpoint.history).toHaveLength(3);
  });

  it('leaves a parked question unanswered (its answer comes with the next message)', () => {
    const recovered = recoverCheckpoint({
      ...emptyCheckpoint(),
      history: [
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'q', name: 'request_user_input', arguments: '{"question":"Which account?"}' }],
        },
      ],
      pendingQuestion: { callId: 'q', tool: 'request_user_input', kind: 'input', prompt: 'Which account?' },
    });
    expect(recovered.history).toHaveLength(1);
  });
});
