import { version } from '../package.json';

/** Inlined by esbuild at bundle time, so the single-file agent needs no package.json next to it. */
export const AGENT_VERSION: string = version;
