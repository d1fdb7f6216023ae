import 'server-only';
import fs from 'node:fs/promises';
import path from 'node:path';

const UNIT_PLACEHOLDER = '@INFERWATCH_UNIT@';
const HEREDOC_END = 'INFERWATCH_UNIT';

/**
 * agent/install.sh with agent/inferwatch-agent.service in its quoted here-document, so the unit has one source and the
 * script installs exactly the unit the repository tests.
 */
export function renderInstallScript(template: string, unit: string): string {
  if (template.split('\n').filter((line) => line === UNIT_PLACEHOLDER).length !== 1) {
    throw new Error(`install.sh must hold the line ${UNIT_PLACEHOLDER} exactly once`);
  }
  const unitLines = unit.replace(/\n+$/, '').split('\n');
  if (unitLines.includes(HEREDOC_END)) throw new Error(`the unit must not hold the line ${HEREDOC_END}: it ends install.sh's here-document`);
  return template
    .split('\n')
    .flatMap((line) => (line === UNIT_PLACEHOLDER ? unitLines : [line]))
    .join('\n');
}

export async function readInstallScript(root: string): Promise<string> {
  const [template, unit] = await Promise.all([
    fs.readFile(path.join(root, 'agent', 'install.sh'), 'utf8'),
    fs.readFile(path.join(root, 'agent', 'inferwatch-agent.service'), 'utf8'),
  ]);
  return renderInstallScript(template, unit);
}
