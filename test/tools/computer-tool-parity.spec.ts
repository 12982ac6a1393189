import { describe, expect, it } from '@jest/globals';
import { ToolRegistry, SHARED_COMPUTER_TOOLS, type ToolDefinition } from '@lazyboy/agent';
import { COMPUTER_PLACE, computerTools } from '../../apps/api/src/agent-tools/computer-tools.js';
import { CLI_PLACE, cliTools } from '../../apps/cli/src/tools/cli-tools.js';
import { LocalBrowser } from '../../apps/cli/src/tools/local-browser.js';

// The CLI's and the service's tool sets are built from the same definitions (libs/agent tools/computer).
// Neither set is asked to do anything here: no browser starts, no screen is acquired.

/** Tools only the service has, and why: they need a computer's screen, which the CLI does not have. */
const SERVICE_ONLY = [
  'computer_observe', // the desktop outside the browser, through the screen's accessibility tree (AT-SPI)
  'computer_act', // clicks, keys and drags on that desktop (xdotool on the screen)
  'wait', // a pause that can end when the screen's pixels change
];
/** Tools only the CLI has. */
const CLI_ONLY: string[] = [];

const serviceTools = computerTools({ get: () => Promise.reject(new Error('no screen in this suite')) });
const cli = cliTools({
  cwd: '/nonexistent',
  logDir: '/nonexistent',
  timeoutMs: 600_000,
  blockUntilMs: 30_000,
  browser: new LocalBrowser({ executablePath: '/nonexistent/chromium', profileDir: '/nonexistent/profile', headed: false }),
}).tools;

const names = (tools: ToolDefinition[]) => tools.map((t) => t.name).sort();
const specs = (tools: ToolDefinition[]) => new Map(new ToolRegistry(tools).specs().map((spec) => [spec.name, spec]));

describe('the CLI and the service offer one tool layer', () => {
  it('both offer every shared tool, and nothing else but the tools listed as their own', () => {
    for (const name of SHARED_COMPUTER_TOOLS) {
      expect(names(cli)).toContain(name);
      expect(names(serviceTools)).toContain(name);
    }
    expect(names(cli)).toEqual([...SHARED_COMPUTER_TOOLS, ...CLI_ONLY].sort());
    expect(names(serviceTools)).toEqual([...SHARED_COMPUTER_TOOLS, ...SERVICE_ONLY].sort());
  });

  it('gives the model the same arguments, kinds and descriptions for a shared tool (but for where it works)', () => {
    const cliSpecs = specs(cli);
    const serviceSpecs = specs(serviceTools);
    // The one thing a description may say differently: where the shell and the files are.
    const placeless = (text: string, place: { home: string; shellNote?: string }) =>
      text.replace(` ${place.shellNote ?? '\0'}`, '').replaceAll(place.home, '<home>');
    for (const name of SHARED_COMPUTER_TOOLS) {
      const inCli = cliSpecs.get(name)!;
      const inService = serviceSpecs.get(name)!;
      expect({ name, parameters: inCli.parameters }).toEqual({ name, parameters: inService.parameters });
      expect({ name, description: placeless(inCli.description, CLI_PLACE) }).toEqual({
        name,
        description: placeless(inService.description, COMPUTER_PLACE),
      });
      expect({ name, kind: cli.find((t) => t.name === name)!.kind }).toEqual({
        name,
        kind: serviceTools.find((t) => t.name === name)!.kind,
      });
    }
  });

  it('validates arguments the same way on both sides (a browser click without its element is refused)', () => {
    for (const tools of [cli, serviceTools]) {
      const browser = tools.find((t) => t.name === 'browser')!;
      expect(browser.schema.safeParse({ action: 'click' }).success).toBe(false);
      expect(browser.schema.safeParse({ action: 'navigate', url: 'not a url' }).success).toBe(false);
      expect(browser.schema.safeParse({ action: 'click', element: 2 }).success).toBe(true);
    }
  });
});
