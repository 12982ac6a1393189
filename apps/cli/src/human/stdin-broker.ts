import type { HumanAnswer, HumanBroker, PendingQuestion } from '@lazyboy/agent';
import type { CliEnv } from '@lazyboy/contracts';
import type { LineInput } from './line-input.js';

const DEFAULT_HANDOFF_TIMEOUT_MS = 15 * 60_000;

/**
 * Human gates in the terminal: a bilingual prompt (繁體中文 + English) on stderr, the answer from standard
 * input. LAZYBOY_HANDOFF_AUTO / LAZYBOY_CONFIRM_AUTO answer without asking (tests, CI). Without a person
 * (end of input, a timeout) every gate fails closed.
 */
export function stdinBroker(input: LineInput, env: CliEnv, write: (text: string) => void): HumanBroker {
  return {
    mode: 'blocking',
    ask: async (question: PendingQuestion & { timeoutMs?: number }, signal: AbortSignal): Promise<HumanAnswer> => {
      const auto =
        question.kind === 'confirm' ? (env.LAZYBOY_CONFIRM_AUTO ?? env.LAZYBOY_HANDOFF_AUTO) : env.LAZYBOY_HANDOFF_AUTO;
      if (auto && question.kind !== 'input') {
        write(`${promptFor(question)}\n(auto: ${auto})\n`);
        if (auto === 'abort')
          return question.kind === 'confirm'
            ? { kind: 'denied', reason: 'auto-denied' }
            : { kind: 'aborted', reason: 'auto-abort' };
        return question.kind === 'confirm' ? { kind: 'approved' } : { kind: 'resumed' };
      }
      write(`${promptFor(question)}\n> `);
      const timeoutMs =
        question.kind === 'handoff' || question.kind === 'takeover'
          ? (question.timeoutMs ?? DEFAULT_HANDOFF_TIMEOUT_MS)
          : undefined;
      const started = Date.now();
      const line = await input.next({ ...(timeoutMs === undefined ? {} : { timeoutMs }), signal });
      if (line === null) {
        if (timeoutMs !== undefined && Date.now() - started >= timeoutMs) return { kind: 'timeout' };
        return question.kind === 'confirm'
          ? { kind: 'denied', reason: 'no answer' }
          : { kind: 'aborted', reason: 'no one answered' };
      }
      const text = line.trim();
      switch (question.kind) {
        case 'input':
          return text ? { kind: 'answer', text } : { kind: 'aborted', reason: 'empty answer' };
        case 'confirm':
          return /^(y|yes|ok|approve|是|好|確認|同意)$/i.test(text)
            ? { kind: 'approved' }
            : { kind: 'denied', ...(text ? { reason: text } : {}) };
        case 'handoff':
        case 'takeover':
          return /^abort$/i.test(text) ? { kind: 'aborted' } : { kind: 'resumed', ...(text ? { note: text } : {}) };
      }
    },
  };
}

function promptFor(q: PendingQuestion): string {
  switch (q.kind) {
    case 'input':
      return `〔需要你的回覆〕${q.prompt}\n[Your answer is needed] ${q.prompt}`;
    case 'confirm':
      return [
        `〔請確認〕即將執行：${q.prompt}`,
        ...(q.draft ? [`草稿 / Draft:\n${q.draft}`] : []),
        '輸入 y 核准，其他任何內容都視為拒絕。',
        `[Confirm] About to: ${q.prompt}. Type y to approve; anything else denies it.`,
      ].join('\n');
    case 'handoff':
      return [
        `〔請接手瀏覽器〕${q.prompt}`,
        '請在瀏覽器視窗完成登入或驗證，完成後按 Enter 繼續；輸入 abort 放棄。',
        `[Browser handoff] ${q.prompt}`,
        'Finish the login or check in the browser window, then press Enter to continue; type abort to give up.',
      ].join('\n');
    case 'takeover':
      return `〔請接手〕${q.prompt}\n完成後按 Enter；輸入 abort 放棄。\n[Take over] ${q.prompt}\nPress Enter when done; type abort to give up.`;
  }
}
