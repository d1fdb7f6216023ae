import { guardLogStreams } from '../lib/protocol/log-streams';
import { ConfigError, HELP_TEXT, loadConfig, type CliAction } from './config';
import { createLogger } from './log';
import { EXIT_CONFIG, EXIT_FAILED, runAgent } from './run';
import { upgradeCommand } from './upgrade-command';
import { AGENT_VERSION } from './version';

// The agent must outlive its log reader (journald restarted, a closed terminal): a line nobody can read is dropped.
guardLogStreams(() => {});

async function main(): Promise<number> {
  let action: CliAction;
  try {
    action = loadConfig({ argv: process.argv.slice(2), env: process.env });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`inferwatch-agent: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  if (action.kind === 'help') {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (action.kind === 'version') {
    process.stdout.write(`${AGENT_VERSION}\n`);
    return 0;
  }
  if (action.kind === 'upgrade') return upgradeCommand(action.server);

  const log = createLogger();
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      log.warn('second signal: exiting now', { signal });
      process.exit(EXIT_FAILED);
    }
    log.info('stopping', { signal });
    controller.abort();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    return await runAgent({ config: action.config, log, signal: controller.signal });
  } catch (err) {
    log.error('agent failed', { error: (err as Error).stack ?? String(err) });
    return EXIT_FAILED;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`inferwatch-agent: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = EXIT_FAILED;
  },
);
