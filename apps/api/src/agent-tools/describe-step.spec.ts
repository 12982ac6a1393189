import { describe, expect, it } from '@jest/globals';
import { BUSY_STEP_KINDS_WITH_TARGET, busyStepSchema } from '@lazyboy/contracts';
import { describeStep, sameStep } from './describe-step.js';

describe('describeStep', () => {
  it('names browser actions by element number, never by what is typed', () => {
    expect(describeStep('browser', { action: 'click', element: 3 })).toEqual({ kind: 'browser_click', target: '3' });
    const typing = describeStep('browser', JSON.stringify({ action: 'type', element: 4, text: 'hunter2-secret' }));
    expect(typing).toEqual({ kind: 'browser_type', target: '4' });
    expect(describeStep('computer_act', { action: 'type', text: 'hunter2-secret' })).toEqual({ kind: 'desktop_type' });
    expect(JSON.stringify(describeStep('browser', { action: 'eval', expression: 'localStorage.token' }))).not.toContain('token');
    expect(describeStep('browser', { action: 'scroll', direction: 'up' })).toEqual({ kind: 'browser_scroll_up' });
    expect(describeStep('browser', { action: 'scroll', direction: 'right', element: 5 })).toEqual({
      kind: 'browser_scroll_right',
    });
  });

  it('names pointer actions by their element, or by the point of the window a click lands on', () => {
    expect(describeStep('browser', { action: 'hover', element: 7 })).toEqual({ kind: 'browser_hover', target: '7' });
    expect(describeStep('browser', { action: 'drag', element: 2, toElement: 9 })).toEqual({ kind: 'browser_drag', target: '2' });
    expect(describeStep('browser', { action: 'click', x: 120, y: 48 })).toEqual({ kind: 'browser_click_at', target: '120,48' });
    // A point inside an element is still a click on that element.
    expect(describeStep('browser', { action: 'click', element: 4, x: 10, y: 3 })).toEqual({ kind: 'browser_click', target: '4' });
  });

  it('shows where the browser goes without query strings or credentials', () => {
    const step = describeStep('browser', { action: 'navigate', url: 'https://me:pw@mail.example.com/inbox?auth=abc123#x' });
    expect(step).toEqual({ kind: 'browser_open', target: 'mail.example.com/inbox' });
    expect(describeStep('browser', { action: 'navigate', url: 'not a url' })).toEqual({ kind: 'browser_open' });
  });

  it('shows shell commands short, with secret-looking values masked', () => {
    expect(describeStep('shell', { command: 'ls -la' })).toEqual({ kind: 'shell', target: 'ls -la' });
    const curl = describeStep('shell', {
      command: "curl -H 'Authorization: Bearer sk-live-123' https://bob:s3cret@api.example.com?token=abc",
    });
    expect(curl.target).not.toMatch(/sk-live-123|s3cret|abc\b/);
    expect(describeStep('shell', { command: 'export API_KEY=zzz-top; make' }).target).not.toContain('zzz-top');
    expect(describeStep('shell', { command: `echo ${'x'.repeat(200)}` }).target!.length).toBeLessThanOrEqual(80);
  });

  it('names files and waits, and survives arguments that are not JSON', () => {
    expect(describeStep('read_file', { path: 'notes.txt' })).toEqual({ kind: 'file_read', target: 'notes.txt' });
    expect(describeStep('write_file', { path: '/home/agent/projects/site/index.html' })).toEqual({
      kind: 'file_write',
      target: '…/site/index.html',
    });
    expect(describeStep('wait', { seconds: 5 })).toEqual({ kind: 'wait', target: '5' });
    expect(describeStep('wait', { seconds: 5, until: 'screen_changes' })).toEqual({ kind: 'wait_screen' });
    expect(describeStep('read_file', '{not json')).toEqual({ kind: 'file_read' });
    expect(describeStep('report_done', {})).toEqual({ kind: 'tool', target: 'report_done' });
  });

  it('always fits the contract, whatever the model sent', () => {
    const odd: Array<[string, unknown]> = [
      ['browser', { action: 'key', keys: 'Control+Shift+Alt+Delete+Escape+F12' }],
      ['browser', { action: 'tabs', op: 'x'.repeat(500) }],
      ['computer_act', { action: 'click_at', x: 'left' }],
      ['list_files', { path: `/${'deep/'.repeat(40)}` }],
      ['x'.repeat(300), {}],
      ['browser', null],
    ];
    for (const [tool, args] of odd) expect(busyStepSchema.safeParse(describeStep(tool, args)).success).toBe(true);
    // A target only on the kinds the contract says may have one (the web words the others without it).
    const withTarget: ReadonlySet<string> = new Set(BUSY_STEP_KINDS_WITH_TARGET);
    const steps = [
      ...odd.map(([tool, args]) => describeStep(tool, args)),
      describeStep('browser', { action: 'type', element: 2, text: 'x' }),
      describeStep('computer_act', { action: 'drag', x: 1, y: 2 }),
      describeStep('computer_observe', {}),
    ];
    for (const step of steps) if (step.target !== undefined) expect(withTarget.has(step.kind)).toBe(true);
  });

  it('compares steps by what they show', () => {
    expect(sameStep({ kind: 'browser_click', target: '3' }, { kind: 'browser_click', target: '3' })).toBe(true);
    expect(sameStep({ kind: 'browser_click', target: '3' }, { kind: 'browser_click', target: '4' })).toBe(false);
    expect(sameStep(null, { kind: 'thinking' })).toBe(false);
    expect(sameStep(null, null)).toBe(true);
  });
});
