export * from './primitives';
export * from './container';
export * from './env-allow-list';
export * from './report';
