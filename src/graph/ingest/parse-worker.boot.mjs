// Worker-thread entry: the TypeScript sources run through tsx's loader here too (no build step).
import { register } from 'tsx/esm/api';

register();
await import('./parse.worker.ts');
