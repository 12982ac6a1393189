// Copies the noVNC client (the npm package's browser ES modules) into public/novnc, where vnc.html loads
// it from the web server's own origin. Run by `npm run build`; the copy is not committed.
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The package exports only core/rfb.js: its folder is two levels up from there.
const packageDir = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@novnc/novnc')), '..');
const target = path.join(webDir, 'public/novnc');
rmSync(target, { recursive: true, force: true });
for (const folder of ['core', 'vendor']) cpSync(path.join(packageDir, folder), path.join(target, folder), { recursive: true });
cpSync(path.join(packageDir, 'LICENSE.txt'), path.join(target, 'LICENSE.txt'));
