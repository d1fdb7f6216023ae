export const SECRET_KEY_BYTES = 32;

/** INFERWATCH_SECRET_KEY or the key file's text: 32 bytes as hex or base64. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`INFERWATCH_SECRET_KEY must be ${SECRET_KEY_BYTES} bytes as hex or base64`);
  return key;
}
