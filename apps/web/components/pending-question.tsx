'use client';

import { useState, type FormEvent } from 'react';
import type { RunView } from '@lazyboy/contracts';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';

type Question = NonNullable<RunView['question']>;

interface PendingQuestionProps {
  question: Question;
  /** Posting a chat message answers a run parked on a question (and shows the answer in the chat). */
  onAnswer(text: string): void;
  /** Opens the computer panel to take over, as the agent asked. */
  onOpenComputer(): void;
  /** Hands the screen back (through the computer panel when it is open); the parked run continues. */
  onHandBack(): Promise<void>;
}

/** The question a parked run waits on, answerable right here. */
export function PendingQuestion({ question, onAnswer, onOpenComputer, onHandBack }: PendingQuestionProps) {
  const t = useT();
  const [text, setText] = useState('');
  const [releasing, setReleasing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One answer per question: a double tap, or Approve then Reject, would reach the agent as a second message.
  // (A failed send shows its own retry in the chat.)
  const [answeredPrompt, setAnsweredPrompt] = useState<string | null>(null);
  const answered = answeredPrompt === `${question.kind}:${question.prompt}`;

  function answer(reply: string) {
    if (answered) return;
    setAnsweredPrompt(`${question.kind}:${question.prompt}`);
    onAnswer(reply);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const reply = text.trim();
    if (!reply) return;
    answer(reply);
    setText('');
  }

  async function release() {
    setReleasing(true);
    setError(null);
    try {
      await onHandBack();
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setReleasing(false);
    }
  }

  const title =
    question.kind === 'confirm'
      ? t.questionConfirmTitle
      : question.kind === 'input'
        ? t.questionInputTitle
        : t.questionTakeoverTitle;
  return (
    <section className="question" data-testid="pending-question" data-kind={question.kind}>
      <header className="question-title">{title}</header>
      <p className="question-prompt">{question.prompt}</p>
      {question.draft && <pre className="question-draft">{question.draft}</pre>}
      {question.kind === 'input' && (
        <form className="question-answer" onSubmit={submit}>
          <textarea
            data-testid="question-answer"
            value={text}
            rows={2}
            placeholder={t.questionAnswerPlaceholder}
            aria-label={t.questionAnswerPlaceholder}
            disabled={answered}
            onChange={(event) => setText(event.target.value)}
          />
          <button
            type="submit"
            className="button button-primary"
            data-testid="question-submit"
            disabled={answered || !text.trim()}
          >
            {t.questionAnswer}
          </button>
        </form>
      )}
      {question.kind === 'confirm' && (
        <div className="form-actions">
          <button
            type="button"
            className="button button-danger-quiet"
            data-testid="question-reject"
            disabled={answered}
            onClick={() => answer(t.confirmRejectReply)}
          >
            {t.questionReject}
          </button>
          <button
            type="button"
            className="button button-primary"
            data-testid="question-approve"
            disabled={answered}
            onClick={() => answer(t.confirmApproveReply)}
          >
            {t.questionApprove}
          </button>
        </div>
      )}
      {(question.kind === 'takeover' || question.kind === 'handoff') && (
        <>
          <p className="question-hint">{t.questionTakeoverHint}</p>
          <div className="form-actions">
            <button
              type="button"
              className="button button-quiet"
              data-testid="question-release"
              disabled={releasing}
              onClick={() => void release()}
            >
              {t.questionRelease}
            </button>
            <button type="button" className="button button-primary" data-testid="question-open-computer" onClick={onOpenComputer}>
              {t.questionOpenComputer}
            </button>
          </div>
        </>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
