// Node processes outside Next (the custom server, CLIs, benchmarks) run server code as a plain Node server:
// resolve the `server-only` marker the way Next resolves it for server components, to its empty module.
import { register } from 'node:module';

register('./server-only-hook.mjs', import.meta.url);
