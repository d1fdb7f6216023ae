// `npm run build`, `npm install`'s postinstall (`--if-stale`), and what `npm start` runs when the build is missing or
// older than the sources: the dashboard (next build), then the server and agent bundles.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { setInterval, clearInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';
import { isBuildStale, recordBuild } from './build-state.mjs';

const STEPS = [
  // Turbopack walks the project tree and hangs on the symlink cycles that real /sys trees in tests/fixtures contain
  // (vercel/next.js#97550); webpack only follows imports.
  { name: 'next build', what: 'the dashboard', args: ['node_modules/next/dist/bin/next', 'build', '--webpack'] },
  { name: 'bundle', what: 'the server and agent bundles', args: ['scripts/bundle.mjs'] },
];

// next build is silent for a minute or more while it compiles: a line now and then says the build is alive.
const HEARTBEAT_MS = 20_000;

const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/**
 * Runs each step as a child whose output this process passes on, so a log reader that went away costs a dropped
 * line here, not a build killed by EPIPE.
 * @param {string} root
 */
export async function buildAll(root) {
  const dropWrite = () => {};
  process.stdout.on('error', dropWrite);
  process.stderr.on('error', dropWrite);
  // A file's mtime has the file system's resolution; a save in the same instant as the start counts as newer.
  const startedAt = Date.now() - 1_000;
  try {
    for (const [index, step] of STEPS.entries()) {
      const stepStarted = Date.now();
      console.log(`inferwatch: building ${step.what} (${step.name}, step ${index + 1} of ${STEPS.length}; 1–4 minutes on 2 cores)…`);
      const heartbeat = setInterval(() => console.log(`inferwatch: still building ${step.what}, ${seconds(Date.now() - stepStarted)} so far`), HEARTBEAT_MS);
      const child = spawn(process.execPath, step.args.map((arg, i) => (i === 0 ? path.join(root, arg) : arg)), {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      });
      child.stdout.on('data', (chunk) => process.stdout.write(chunk));
      child.stderr.on('data', (chunk) => process.stderr.write(chunk));
      const [code] = await once(child, 'close').finally(() => clearInterval(heartbeat));
      if (code !== 0) throw new Error(`${step.name} failed with exit code ${code}`);
      console.log(`inferwatch: built ${step.what} in ${seconds(Date.now() - stepStarted)}`);
    }
    recordBuild(root, startedAt);
  } finally {
    process.stdout.off('error', dropWrite);
    process.stderr.off('error', dropWrite);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.cwd();
  if (process.argv.includes('--if-stale') && !isBuildStale(root)) console.log('inferwatch: the build is up to date');
  else await buildAll(root);
}
