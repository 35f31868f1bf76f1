#!/usr/bin/env node
// The `wapii` command runs the TypeScript engine directly through tsx, so the CLI needs no
// build step and always matches the source it ships with.
import { register } from 'tsx/esm/api';

register();
await import('../main/cli/index.ts');
