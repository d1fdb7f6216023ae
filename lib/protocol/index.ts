export * from './primitives';
export * from './env-allow-list';
export * from './report';
