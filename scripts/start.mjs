// `npm start`: builds when there is no build or the sources are newer, then runs the compiled server in this process.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildAll } from './build.mjs';
import { isBuildStale } from './build-state.mjs';

const root = process.cwd();
if (isBuildStale(root)) {
  console.log('inferwatch: building (first start or sources changed)…');
  await buildAll(root);
}
await import(pathToFileURL(path.join(root, 'dist', 'server.mjs')).href);
