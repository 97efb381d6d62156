#!/usr/bin/env node
// The landlex CLI: TypeScript sources run through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
