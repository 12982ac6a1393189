import type { AgentEvent, RunOutcome } from '@lazyboy/agent';

export interface PrinterOptions {
  out: (text: string) => void;
  err: (text: string) => void;
  /** LAZYBOY_PROGRESS: the 〔續跑〕 beats after every chunk. */
  progress: boolean;
}

/** Blocked codes after which the run is truly stopped (a recovery hint helps); others ended normally. */
const TRULY_STOPPED = new Set(['identical_rounds', 'no_progress', 'total_budget', 'empty_responses', 'model_error']);

/** Formats the runtime's typed events for a terminal: answers on stdout, the work on stderr. */
export class EventPrinter {
  private streamedText = false;

  constructor(private readonly options: PrinterOptions) {}

  handle = (event: AgentEvent): void => {
    const { out, err } = this.options;
    switch (event.type) {
      case 'model_request':
        this.streamedText = false;
        break;
      case 'model_delta':
        if (event.delta.type === 'text_delta') {
          out(event.delta.text);
          this.streamedText = true;
        }
        break;
      case 'model_response':
        if (this.streamedText && !event.text.endsWith('\n')) out('\n');
        break;
      case 'tool_call':
        if (!['send_message', 'report_progress', 'update_plan', 'report_done', 'report_blocked'].includes(event.call.name)) {
          err(`→ ${event.call.name} ${oneLine(event.call.arguments, 160)}\n`);
        }
        break;
      case 'tool_result':
        if (event.isError) err(`  ✗ ${oneLine(event.preview, 200)}\n`);
        break;
      case 'message':
        out(`${event.text}\n`);
        break;
      case 'plan':
        err(
          `計畫 / plan${event.reason ? ` (${event.reason})` : ''}:\n${event.steps.map((s) => `  ${mark(s.status)} ${s.title}`).join('\n')}\n`,
        );
        break;
      case 'progress':
        if (this.options.progress) {
          err(
            `〔續跑〕第 ${event.chunk} 段（已用 ${event.roundsUsed}/${event.roundsTotal} 輪）進度：${event.summary || '（尚無進度說明）'}\n`,
          );
        }
        break;
      case 'heartbeat':
        err(`… 等待中 / waiting for ${event.awaiting} (${Math.round(event.sinceMs / 1000)} s)\n`);
        break;
      case 'background':
        err(`${event.status === 'started' ? '⇢ background' : '⇠ finished'}: ${event.jobId} ${event.description}\n`);
        break;
      case 'done':
      case 'blocked':
        this.finish(event.outcome);
        break;
      default:
        break;
    }
  };

  private finish(outcome: RunOutcome): void {
    const { out, err } = this.options;
    if (outcome.status === 'done') {
      // A plain-text answer was already streamed; a report_done summary was not.
      if (!this.streamedText && outcome.summary) out(`${outcome.summary}\n`);
    } else if (outcome.status === 'blocked') {
      err(`blocked: ${outcome.reason}\n`);
      if (TRULY_STOPPED.has(outcome.code)) {
        err('提示：這個工作已停下，對話紀錄都還在。請用更短、更具體的指示接著做（不用貼上剛才的訊息）。\n');
      }
    }
  }
}

function mark(status: string): string {
  return status === 'done' ? '✓' : status === 'active' ? '→' : status === 'dropped' ? '✗' : '·';
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
