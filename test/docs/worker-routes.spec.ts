import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allWorkerRoutes, screenVncPath, slotOfScreenVncPath } from '@lazyboy/contracts';
import { repoRoot } from '@lazyboy/localstack';
import { codeOf, sourceFiles } from './source-scan.js';

// The worker's control API is spelled out once, in libs/contracts/src/worker-routes.ts: the worker serves
// that table and the API's WorkerClient calls through it. A path typed anywhere else is a second copy of
// the protocol that the next driver (a pod instead of a process) would have to find and keep in step.

const CONTRACT = path.join('libs', 'contracts', 'src', 'worker-routes.ts');
const SOURCE_ROOTS = ['apps', 'libs'];

// /healthz is every process's liveness path (the API's and the web server's too), so it says nothing.
const workerPaths = allWorkerRoutes()
  .map((route) => route.path)
  .filter((p) => p !== '/healthz');
const prefixes = [...new Set(workerPaths.map((p) => p.split('/').slice(0, 2).join('/')))];
// A string literal (or the start of a template) that begins with one of the worker's top-level paths.
const literal = new RegExp(`['"\`](${prefixes.map((p) => p.replace(/\//g, '\\/')).join('|')})(\\/|['"\`$])`);

describe('the worker protocol', () => {
  it('has every route once, under paths that the pattern below recognises', () => {
    expect(new Set(workerPaths).size).toBe(workerPaths.length);
    for (const p of workerPaths) expect(literal.test(`'${p}'`)).toBe(true);
    expect(slotOfScreenVncPath(screenVncPath(7))).toBe(7);
    expect(slotOfScreenVncPath('/screens/7/vnc/x')).toBeUndefined();
  });

  it('names no worker route outside libs/contracts/src/worker-routes.ts', () => {
    const files = sourceFiles(SOURCE_ROOTS, { skip: ['testing'] }).filter((file) => file !== CONTRACT);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      codeOf(readFileSync(path.join(repoRoot, file), 'utf8'))
        .split('\n')
        .filter((line) => literal.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
