#!/usr/bin/env node
// stage-app.mjs WORKSPACE DEST: what one app of the repository needs at run time, laid out under DEST as it
// is in the repository (DEST/apps/<app>/dist, DEST/node_modules/…): the app's build, and the production
// dependencies it reaches, the project's own libraries (their builds) among them. Nothing of the tests,
// the sources or the dev dependencies goes in. Run after the build.
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [workspace, dest] = process.argv.slice(2);
if (!workspace || !dest) {
  console.error('usage: stage-app.mjs apps/<app> DEST');
  process.exit(2);
}

/** Build output that is of no use at run time. */
const skipped = (file) => file.endsWith('.map') || file.endsWith('.d.ts') || file.endsWith('.tsbuildinfo');
const copy = (from, to) => cpSync(from, to, { recursive: true, dereference: true, filter: (f) => !skipped(f) });
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Where `name` resolves from a package in `fromDir` (Node's lookup: each node_modules up to the repository). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === repo || dir === path.dirname(dir)) throw new Error(`${name} (needed by ${fromDir}) is not installed`);
  }
}

const staged = new Map(); // real directory -> where it went
function stage(name, fromDir, intoModules) {
  const dir = packageDir(name, fromDir);
  const real = realpathSync(dir);
  if (staged.has(real)) return;
  const target = path.join(intoModules, name);
  staged.set(real, target);
  const manifest = readJson(path.join(real, 'package.json'));
  if (real.startsWith(path.join(repo, 'libs') + path.sep)) {
    // One of the project's libraries: its manifest and its build.
    mkdirSync(target, { recursive: true });
    writeFileSync(path.join(target, 'package.json'), JSON.stringify(manifest, null, 2));
    copy(path.join(real, 'dist'), path.join(target, 'dist'));
  } else {
    copy(real, target);
  }
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
    if (manifest.optionalDependencies?.[dep] && !safeExists(dep, real)) continue;
    // A package with a nested copy of its own keeps it (it came along with the copy above).
    const nested = path.join(real, 'node_modules', dep);
    if (existsSync(nested)) continue;
    stage(dep, real, intoModules);
  }
}

function safeExists(name, fromDir) {
  try {
    packageDir(name, fromDir);
    return true;
  } catch {
    return false;
  }
}

const app = path.join(repo, workspace);
const manifest = readJson(path.join(app, 'package.json'));
mkdirSync(path.join(dest, workspace), { recursive: true });
writeFileSync(path.join(dest, workspace, 'package.json'), JSON.stringify(manifest, null, 2));
copy(path.join(app, 'dist'), path.join(dest, workspace, 'dist'));
writeFileSync(path.join(dest, 'package.json'), JSON.stringify({ name: 'lazyboy', private: true, type: 'module' }, null, 2));
for (const dep of Object.keys(manifest.dependencies ?? {})) stage(dep, app, path.join(dest, 'node_modules'));
console.error(`stage-app: ${workspace} and ${staged.size} packages -> ${dest}`);
