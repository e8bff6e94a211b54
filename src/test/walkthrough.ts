/** Helpers of the README walkthrough test (src/readme.test.ts): extract its blocks, run them, match outputs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface Block {
  code: string;
  /** The ```text block right after it, if any. */
  expected?: string;
}

/** The ```sh blocks of one `## <title>` section, each with the ```text block that follows it. */
export function extractWalkthrough(markdown: string, title: string): Block[] {
  const start = markdown.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const end = markdown.indexOf('\n## ', start + 4);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const blocks: Block[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(section); m; m = fence.exec(section)) {
    if (m[1] === 'sh') blocks.push({ code: m[2] });
    else if (m[1] === 'text' && blocks.length && blocks[blocks.length - 1].expected === undefined) {
      const between = section.slice(section.lastIndexOf('```', m.index - 2), m.index);
      if (/```\s*\n\s*$/.test(between)) blocks[blocks.length - 1].expected = m[2];
    }
  }
  return blocks;
}

/** `…` matches any text (lines included); everything else literally; trailing blanks are ignored. */
export function matchesOutput(actual: string, expected: string): boolean {
  const pattern = expected.trimEnd().split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual.trimEnd());
}

/** Starts `bin/scent.js serve` on a free port; resolves once it serves (its output so far, and the port). */
export function startServer(root: string, env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, [join(root, 'bin/scent.js'), 'serve', '--port', '0'], {
    cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ child: ChildProcess; port: number; output: () => string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stdout}\n${stderr}`)), 60_000);
    const check = () => {
      // The banner is written in one piece after the server listens.
      const m = /at http:\/\/127\.0\.0\.1:(\d+) /.exec(stdout);
      if (m && /This password is shown only once\.\n/.test(stdout)) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => stdout });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${stdout}\n${stderr}`)));
  });
}

const MARK = '@@scent-walkthrough-block@@';

/** Runs the blocks in one bash, in order; answers each block's stdout, the shell's stderr and exit code. */
export function runWalkthrough(root: string, blocks: string[], env: NodeJS.ProcessEnv) {
  const script = ['set -euo pipefail', ...blocks.flatMap((code) => [`echo '${MARK}'`, code])].join('\n');
  const child = spawn('bash', ['-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<string[] & { stderr: string; exitCode: number | null }>((resolve) => {
    child.on('close', (exitCode) => {
      const outputs = stdout.split(`${MARK}\n`).slice(1);
      resolve(Object.assign(outputs, { stderr, exitCode }));
    });
  });
}
