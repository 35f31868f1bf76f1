// The sandbox process's entry when running from TypeScript source (the CLI and the tests run
// under tsx): a forked process does not inherit tsx's loader, so this registers it first.
import { register } from 'tsx/esm/api';

register();
await import('./child.ts');
