import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_CONFIG, EXIT_FAILED } from './run';
import { UpgradeError, upgradeAgent } from './upgrade';

const say = (line: string) => process.stdout.write(`inferwatch-agent: ${line}\n`);
const complain = (line: string) => process.stderr.write(`inferwatch-agent: ${line}\n`);

/** `inferwatch-agent --upgrade`: replaces the bundle this process runs from with the server's; the exit status. */
export async function upgradeCommand(server: string): Promise<number> {
  const target = realpathSync(fileURLToPath(import.meta.url));
  if (!target.endsWith('.mjs')) {
    complain(`--upgrade replaces the single-file agent it runs from (inferwatch-agent.mjs); this one runs from ${target}`);
    return EXIT_CONFIG;
  }
  try {
    const outcome = await upgradeAgent({ server, target, nodePath: process.execPath });
    if (outcome.kind === 'current') say(`${target} is already the server's agent (${outcome.version})`);
    else say(`upgraded ${target} from ${outcome.from} to ${outcome.to} (the previous one is kept as ${outcome.previous}); restart the agent: systemctl restart inferwatch-agent`);
    return 0;
  } catch (err) {
    if (!(err instanceof UpgradeError)) throw err;
    complain(`upgrade failed: ${err.message}`);
    return EXIT_FAILED;
  }
}
