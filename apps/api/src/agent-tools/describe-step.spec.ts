import { describe, expect, it } from '@jest/globals';
import { describeStep } from './describe-step.js';

describe('describeStep', () => {
  it('names browser actions by element number, never by what is typed', () => {
    expect(describeStep('browser', { action: 'click', element: 3 })).toBe('browser click 3');
    const typing = describeStep('browser', JSON.stringify({ action: 'type', element: 4, text: 'hunter2-secret' }));
    expect(typing).toBe('browser typing into 4');
    expect(describeStep('computer_act', { action: 'type', text: 'hunter2-secret' })).toBe('desktop typing');
    expect(describeStep('browser', { action: 'eval', expression: 'localStorage.token' })).not.toContain('token');
  });

  it('shows where the browser goes without query strings or credentials', () => {
    const step = describeStep('browser', { action: 'navigate', url: 'https://me:pw@mail.example.com/inbox?auth=abc123#x' });
    expect(step).toBe('browser open mail.example.com/inbox');
  });

  it('shows shell commands short, with secret-looking values masked', () => {
    expect(describeStep('shell', { command: 'ls -la' })).toBe('shell: ls -la');
    const curl = describeStep('shell', {
      command: "curl -H 'Authorization: Bearer sk-live-123' https://bob:s3cret@api.example.com?token=abc",
    });
    expect(curl).not.toMatch(/sk-live-123|s3cret|abc\b/);
    expect(describeStep('shell', { command: 'export API_KEY=zzz-top; make' })).not.toContain('zzz-top');
    expect(describeStep('shell', { command: `echo ${'x'.repeat(200)}` }).length).toBeLessThanOrEqual(80);
  });

  it('names files and waits, and survives arguments that are not JSON', () => {
    expect(describeStep('read_file', { path: 'notes.txt' })).toBe('reading notes.txt');
    expect(describeStep('write_file', { path: '/home/agent/projects/site/index.html' })).toBe('writing …/site/index.html');
    expect(describeStep('wait', { seconds: 5 })).toBe('waiting 5 s');
    expect(describeStep('wait', { seconds: 5, until: 'screen_changes' })).toBe('waiting for the screen to change');
    expect(describeStep('read_file', '{not json')).toBe('reading a file');
    expect(describeStep('report_done', {})).toBe('report done');
  });
});
