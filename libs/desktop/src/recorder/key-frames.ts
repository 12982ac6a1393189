import type { KeyFrame, Recording, SemanticEvent } from './types.js';

/** A frame taken this soon after a submit or navigation shows its outcome. */
const OUTCOME_WINDOW_MS = 4_000;

/**
 * Up to `max` frames for the model, in time order: the first and the last (where it started, how it ended),
 * then frames showing the outcome of a navigation or submit, then any others, each time taking the candidate
 * farthest in time from those already chosen so the choice spreads over the whole recording.
 */
export function selectKeyFrames(recording: Recording, max = 8): KeyFrame[] {
  const frames = recording.frames;
  if (max <= 0) return [];
  if (frames.length <= max) return [...frames];
  const chosen = new Set<KeyFrame>([frames[0], frames[frames.length - 1]].filter((f): f is KeyFrame => !!f).slice(0, max));
  const outcomes = frames.filter((frame) => showsOutcome(frame, recording.events));
  pickSpread(chosen, outcomes, max);
  pickSpread(chosen, frames, max);
  return frames.filter((frame) => chosen.has(frame));
}

function showsOutcome(frame: KeyFrame, events: SemanticEvent[]): boolean {
  if (frame.reason === 'navigation') return true;
  // The newest event before the frame, then back while events are in the window: a frame a moment after a
  // submit shows its result even if a click came in between.
  for (let seq = frame.afterSeq; seq >= 1; seq -= 1) {
    const event = events[seq - 1];
    if (!event || frame.offsetMs - event.offsetMs > OUTCOME_WINDOW_MS) break;
    if (event.kind === 'submit' || (event.kind === 'navigation' && !event.initial)) return true;
  }
  return false;
}

function pickSpread(chosen: Set<KeyFrame>, candidates: KeyFrame[], max: number): void {
  const left = candidates.filter((frame) => !chosen.has(frame));
  while (chosen.size < max && left.length > 0) {
    let best = 0;
    let bestDistance = -1;
    left.forEach((frame, index) => {
      let distance = Number.POSITIVE_INFINITY;
      for (const other of chosen) distance = Math.min(distance, Math.abs(frame.offsetMs - other.offsetMs));
      if (distance > bestDistance) {
        best = index;
        bestDistance = distance;
      }
    });
    const [picked] = left.splice(best, 1);
    if (picked) chosen.add(picked);
  }
}
