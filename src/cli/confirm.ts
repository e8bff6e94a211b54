import { createInterface } from 'node:readline';

/** Asks on stderr, reads one line from stdin; true only for "yes" (or "y"). End of input answers no. */
export function confirm(question: string): Promise<boolean> {
  process.stderr.write(question);
  const rl = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}
