export * from './tokens';
export * from './enrollment-keys';
export * from './enroll-host';
export * from './authenticate-host';
export * from './admin-auth';
export * from './ensure-local-enrollment-key';
export { HostTokenCache, TOKEN_CACHE_TTL_MS } from './host-token-cache';
export { RevocationWatch, REVOCATION_CHECK_MS } from './revocation-watch';
export * from './enrollment-key-input';
