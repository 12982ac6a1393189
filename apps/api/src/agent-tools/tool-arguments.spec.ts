import { describe, expect, it } from '@jest/globals';
import { ToolRegistry, type ToolDefinition } from '@lazyboy/agent';
import { computerTools } from './computer-tools.js';

// The arguments the model may send, checked before anything reaches a computer: the provider below is
// never asked for a screen.
const tools = computerTools({
  get: () => Promise.reject(new Error('no screen in this suite')),
});
const byName = (name: string): ToolDefinition => tools.find((t) => t.name === name)!;

describe('computer tool arguments', () => {
  it('offers every computer tool with the kinds the runtime schedules by', () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, t.kind]))).toEqual({
      browser: 'browser',
      computer_observe: 'desktop',
      computer_act: 'desktop',
      shell: 'command',
      command_output: 'read',
      list_files: 'read',
      read_file: 'read',
      write_file: 'write',
      wait: 'command',
    });
  });

  it('refuses a browser action without the fields it needs, naming the action', () => {
    const browser = byName('browser');
    const missing = browser.schema.safeParse({ action: 'click' });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.message).toMatch(/^click: /);
    expect(browser.schema.safeParse({ action: 'navigate', url: 'not a url' }).success).toBe(false);
    expect(browser.schema.safeParse({ action: 'tabs', op: 'switch' }).success).toBe(false);
    expect(browser.schema.safeParse({ action: 'type', element: 2, text: 'hi', submit: true }).success).toBe(true);
  });

  it('refuses desktop actions without their fields', () => {
    const act = byName('computer_act');
    expect(act.schema.safeParse({ action: 'click_at', x: 10 }).success).toBe(false);
    expect(act.schema.safeParse({ action: 'drag', from: { x: 1, y: 2 }, to: { x: 3, y: 4 } }).success).toBe(true);
  });

  it('shows the model an object schema per tool (providers refuse top-level unions)', () => {
    for (const spec of new ToolRegistry(tools).specs())
      expect([spec.name, spec.parameters['type']]).toEqual([spec.name, 'object']);
  });
});
