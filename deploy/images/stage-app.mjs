#!/usr/bin/env node
// stage-app.mjs WORKSPACE DEST: what one app of the repository needs at run time, laid out under DEST as it
// is in the repository (DEST/apps/<app>/dist, DEST/node_modules/…): the app's build, the production
// dependencies it reaches (the project's own libraries, their builds, among them) and what else the app
// runs with (BESIDE). Nothing of the tests, the sources or the dev dependencies goes in. Run after the build.
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
const [workspace, dest] = process.argv.slice(2);
if (!workspace || !dest) {
  console.error('usage: stage-app.mjs apps/<app> DEST');
  process.exit(2);
}

/**
 * What an app needs at run time beside its build and its dependencies: files of the repository, packages
 * it is run with that are none of its dependencies (their commands linked into node_modules/.bin, as npm
 * does), and a Next.js config, staged compiled.
 */
const BESIDE = {
  // The database's migrations, applied as the local stack applies them (libs/localstack/src/migrate.ts):
  // `prisma migrate deploy` with the repository's config; the CLI is a dev dependency of the repository's.
  'apps/api': { files: ['prisma.config.ts', 'prisma/schema.prisma', 'prisma/migrations'], tools: ['prisma'] },
  // The custom server (dist/server) serves Next's build and the public files.
  'apps/web': { files: ['apps/web/.next', 'apps/web/public'], nextConfig: 'apps/web/next.config.ts' },
};

/** Build output that is of no use at run time (Next's cache is read by the next build only). */
const skipped = (file) =>
  file.endsWith('.map') ||
  file.endsWith('.d.ts') ||
  file.endsWith('.tsbuildinfo') ||
  file.endsWith(`${path.sep}.next${path.sep}cache`);
/** Next's native compiler (100 MB): a server started it only to compile next.config.ts, staged compiled instead. */
const unused = (name) => name.startsWith('@next/swc-');
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

const app = realpathSync(path.join(repo, workspace));
// Where each directory went that holds packages in a node_modules of its own: the repository's root, the
// app, and every staged package (by its real directory). A package goes into its holder's copy, so that
// Node finds in DEST what it finds in the repository, however many versions of one package are installed.
const placed = new Map([
  [repo, dest],
  [app, path.join(dest, workspace)],
]);
let packages = 0;

/** Stages the package `name` as a package or app in the real directory `fromDir` finds it, and what it needs. */
function stage(name, fromDir) {
  const dir = packageDir(name, fromDir);
  const real = realpathSync(dir);
  if (placed.has(real)) return;
  const holder = placed.get(dir.slice(0, -path.join('/node_modules', name).length));
  if (!holder) throw new Error(`${dir}: not in the node_modules of the repository, the app or a staged package`);
  const target = path.join(holder, 'node_modules', name);
  placed.set(real, target);
  packages += 1;
  const manifest = readJson(path.join(real, 'package.json'));
  if (real.startsWith(path.join(repo, 'libs') + path.sep)) {
    // One of the project's libraries: its manifest and its build.
    mkdirSync(target, { recursive: true });
    writeFileSync(path.join(target, 'package.json'), JSON.stringify(manifest, null, 2));
    copy(path.join(real, 'dist'), path.join(target, 'dist'));
  } else {
    // Its own nested packages are staged one by one below, those it needs only.
    const nested = (f) => f !== real && path.basename(f) === 'node_modules';
    cpSync(real, target, { recursive: true, dereference: true, filter: (f) => !skipped(f) && !nested(f) });
  }
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
    if (unused(dep) || (manifest.optionalDependencies?.[dep] && !safeExists(dep, real))) continue;
    stage(dep, real);
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

const manifest = readJson(path.join(app, 'package.json'));
mkdirSync(path.join(dest, workspace), { recursive: true });
writeFileSync(path.join(dest, workspace, 'package.json'), JSON.stringify(manifest, null, 2));
copy(path.join(app, 'dist'), path.join(dest, workspace, 'dist'));
writeFileSync(path.join(dest, 'package.json'), JSON.stringify({ name: 'lazyboy', private: true, type: 'module' }, null, 2));
for (const dep of Object.keys(manifest.dependencies ?? {})) stage(dep, app);

const beside = BESIDE[workspace] ?? {};
for (const file of beside.files ?? []) copy(path.join(repo, file), path.join(dest, file));
for (const tool of beside.tools ?? []) {
  stage(tool, repo);
  const modules = path.join(dest, 'node_modules');
  const { bin } = readJson(path.join(modules, tool, 'package.json'));
  for (const [command, file] of Object.entries(typeof bin === 'string' ? { [tool]: bin } : (bin ?? {}))) {
    mkdirSync(path.join(modules, '.bin'), { recursive: true });
    symlinkSync(path.join('..', tool, file), path.join(modules, '.bin', command));
  }
}
if (beside.nextConfig) {
  // Next finds next.config.mjs as it finds next.config.ts; the compiler is the build's TypeScript.
  const { default: ts } = await import('typescript');
  const { outputText } = ts.transpileModule(readFileSync(path.join(repo, beside.nextConfig), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(path.join(dest, beside.nextConfig.replace(/\.ts$/, '.mjs')), outputText);
}
console.error(`stage-app: ${workspace} and ${packages} packages -> ${dest}`);
