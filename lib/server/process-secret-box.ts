import path from 'node:path';
import { loadOrCreateKeyFile, SecretBox } from '../alerts/channels/secret-box';
import { processSingleton } from '../process-singleton';
import { serverEnvironment } from './environment';

/** This process's key: INFERWATCH_SECRET_KEY, else the key file in INFERWATCH_STATE_DIR (./.inferwatch). */
export function processSecretKey(): Buffer {
  const { secretKey, stateDir } = serverEnvironment();
  return secretKey ?? loadOrCreateKeyFile(path.join(stateDir, 'secret.key'));
}

/** This process's box, with processSecretKey's key: it opens alert channels' secrets. */
export function processSecretBox(): SecretBox {
  return processSingleton('secret-box', () => new SecretBox(processSecretKey()));
}
