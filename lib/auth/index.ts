export * from './tokens';
export * from './enrollment-keys';
export * from './enroll-host';
export * from './authenticate-host';
export * from './admin-auth';
export * from './ensure-local-enrollment-key';
export { hostTokenCache, MAX_TOKEN_CACHE_TTL_MS } from './host-token-cache';
export * from './enrollment-key-input';
