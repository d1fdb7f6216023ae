// Integration tests run lib/ as server.ts does, with its settings from this process's environment (each test file
// points DATABASE_URL at its own database before it opens one).
import { provideServerSettings } from '../../lib/server/provide-settings';

provideServerSettings();
