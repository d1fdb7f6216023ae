import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pipeChildOutput } from './log-stream-guard';

export interface LocalAgentOptions {
  root: string;
  serverUrl: string;
  enrollKeyFile: string;
  stateDir: string;
  intervalS: number;
  /** Run agent/cli.ts through tsx (`npm run dev`) instead of the bundle `npm run build` made. */
  fromSource?: boolean;
}

const RESTART_DELAY_MS = 5_000;

// The flags of agent/inferwatch-agent.service: the agent is I/O-bound, so it runs small (agent/README.md).
const BUNDLE_NODE_FLAGS = ['--lite-mode', '--no-expose-wasm', '--max-semi-space-size=1', '--max-old-space-size=64'];

function agentEntry(options: LocalAgentOptions): string[] {
  if (options.fromSource) return ['--import', 'tsx', path.join(options.root, 'agent', 'cli.ts')];
  return [...BUNDLE_NODE_FLAGS, path.join(options.root, 'dist', 'inferwatch-agent.mjs')];
}

// What the agent may inherit from the server's environment: how to find programs, the locale and the clock. Not the
// database URL, the admin token, the secret key or the OIDC secret, and not INFERWATCH_* variables, which the agent
// would read as its own settings.
const INHERITED = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_EXTRA_CA_CERTS'];

/** The local agent's environment: the allow-listed variables of the server's, nothing else. */
export function localAgentEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(INHERITED.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]!]])));
}

/**
 * Runs the agent for this machine beside the server, so a fresh install shows a real host at once.
 * It is the same CLI an operator runs, enrolled with a local key read from a 0600 file (never on the command line).
 */
export function startLocalAgent(options: LocalAgentOptions): { stop(): Promise<void> } {
  let child: ChildProcess | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;

  const launch = () => {
    child = spawn(
      process.execPath,
      [
        ...agentEntry(options),
        '--server',
        options.serverUrl,
        '--enroll-key-file',
        options.enrollKeyFile,
        '--state-dir',
        options.stateDir,
        '--interval',
        String(options.intervalS),
      ],
      // Next's types require NODE_ENV of every ProcessEnv; the agent does not read it.
      { cwd: options.root, env: localAgentEnvironment(process.env) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    pipeChildOutput(child);
    child.on('exit', (code, signal) => {
      if (stopping) return;
      console.error(`inferwatch: local agent exited (${signal ?? code}); restarting in ${RESTART_DELAY_MS / 1000} s`);
      restartTimer = setTimeout(launch, RESTART_DELAY_MS);
    });
  };
  launch();

  return {
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        clearTimeout(restartTimer);
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
