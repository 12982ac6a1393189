import { describe, expect, it } from '@jest/globals';
import { selectKeyFrames } from './key-frames.js';
import { renderRecording } from './render.js';
import { namesSecret, scrubUrl } from './secret-fields.js';
import type { KeyFrame, Recording, SemanticEvent } from './types.js';

describe('secret field rules', () => {
  it('hides fields named like secrets and leaves ordinary fields alone', () => {
    for (const name of ['password', 'userPassword', 'new_passwd', 'passcode', 'pin', 'otp', 'one-time-code', 'mfaCode']) {
      expect([name, namesSecret(name)]).toEqual([name, true]);
    }
    for (const name of ['api_token', 'clientSecret', 'cvv', 'cc-number', 'cardNumber', 'Card number', '密碼', '验证码']) {
      expect([name, namesSecret(name)]).toEqual([name, true]);
    }
    for (const name of ['email', 'username', 'shipping', 'spinner', 'passenger', 'first name', 'search', 'Month']) {
      expect([name, namesSecret(name)]).toEqual([name, false]);
    }
  });

  it('blanks secret query parameters and credentials in addresses', () => {
    expect(scrubUrl('https://a.example/login?user=ada&password=hunter2&next=/x')).toBe(
      'https://a.example/login?user=ada&password=%28not+recorded%29&next=%2Fx',
    );
    expect(scrubUrl('https://bob:pw@a.example/')).toBe('https://a.example/');
    expect(scrubUrl('https://a.example/?q=cats')).toBe('https://a.example/?q=cats');
  });
});

const START = Date.parse('2025-01-01T00:00:00Z');
const stamp = (seq: number, offsetMs: number) => ({
  seq,
  at: new Date(START + offsetMs).toISOString(),
  offsetMs,
  tab: 1,
  url: 'https://a.example/login',
  title: 'Sign in',
});
const button = { role: 'button', name: 'Sign in', text: '', hint: '#signin', tag: 'button', type: '' };
const email = { role: 'textbox', name: 'Email', text: '', hint: '#email', tag: 'input', type: 'email' };
const password = { role: 'textbox', name: 'Password', text: '', hint: '#password', tag: 'input', type: 'password' };

function frame(index: number, offsetMs: number, afterSeq: number, reason: KeyFrame['reason'] = 'change'): KeyFrame {
  return { index, at: '', offsetMs, reason, afterSeq, signature: `s${index}`, difference: 10, png: Buffer.alloc(0) };
}

describe('renderRecording', () => {
  it('numbers the events and says a password was filled without its value', () => {
    const events: SemanticEvent[] = [
      { kind: 'navigation', ...stamp(1, 0), initial: true, spa: false },
      { kind: 'input', ...stamp(2, 1000), target: email, value: 'ada@example.com', redacted: false },
      { kind: 'input', ...stamp(3, 2000), target: password, value: null, redacted: true, secret: 'password' },
      { kind: 'click', ...stamp(4, 3000), target: button },
      { kind: 'navigation', ...stamp(5, 4000), url: 'https://a.example/home', title: 'Home', initial: false, spa: false },
    ];
    const recording: Recording = {
      goal: 'Sign in',
      startedAt: new Date(START).toISOString(),
      endedAt: new Date(START + 5000).toISOString(),
      events,
      frames: [frame(0, 0, 0, 'start')],
      framesDropped: 0,
    };
    expect(renderRecording(recording)).toBe(
      [
        'Goal: Sign in',
        'Demonstrated in 5 s: 5 events, 1 key frames.',
        'Events:',
        '1. started on Sign in (https://a.example/login)',
        '2. typed "ada@example.com" into textbox "Email" [#email] on Sign in (https://a.example/login)',
        '3. filled password field "Password" (not recorded) on Sign in (https://a.example/login)',
        '4. clicked button "Sign in" [#signin] on Sign in (https://a.example/login)',
        '5. went to Home (https://a.example/home)',
      ].join('\n'),
    );
  });
});

describe('selectKeyFrames', () => {
  it('keeps the first and last, prefers outcomes of navigations and submits, and spreads the rest', () => {
    const events: SemanticEvent[] = [
      { kind: 'navigation', ...stamp(1, 0), initial: true, spa: false },
      { kind: 'submit', ...stamp(2, 50_000), form: { ...button, role: 'form', name: 'login' } },
    ];
    // Twenty frames one every 5 s; frame 10 comes 1 s after the submit, frame 15 after a navigation.
    const frames = Array.from({ length: 20 }, (_, i) => frame(i, i * 5000 + (i === 10 ? 1000 : 0), i >= 10 ? 2 : 1));
    frames[15] = frame(15, 75_000, 2, 'navigation');
    const recording: Recording = { goal: 'g', startedAt: '', endedAt: '', events, frames, framesDropped: 0 };

    const chosen = selectKeyFrames(recording, 4).map((f) => f.index);
    expect(chosen).toEqual([0, 10, 15, 19]);
    const eight = selectKeyFrames(recording).map((f) => f.index);
    expect(eight).toHaveLength(8);
    expect(eight).toEqual([...eight].sort((a, b) => a - b));
    expect(eight).toEqual(expect.arrayContaining([0, 10, 15, 19]));
    expect(selectKeyFrames({ ...recording, frames: frames.slice(0, 3) }).map((f) => f.index)).toEqual([0, 1, 2]);
  });
});
