// Worker entry when running from TypeScript source (the CLI and the tests run under tsx): worker
// threads do not inherit tsx's loader, so this registers it and then loads the real worker.
import { register } from 'tsx/esm/api';

register();
await import('./header-worker.ts');
