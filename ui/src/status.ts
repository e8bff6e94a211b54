/** Job status numbers (CONTRACT §6) in words. */
export const JOB_STATUS: Record<number, string> = {
  [-1]: 'invalid', 0: 'ready', 1: 'running', 2: 'complete', 3: 'canceled', 4: 'timed out', 5: 'failed',
  6: 'ingesting', 7: 'analyzing', 8: 'partially complete',
};
export const statusName = (n: number) => JOB_STATUS[n] ?? `status ${n}`;
/** Upload job states after which nothing changes any more. */
export const FINISHED = new Set([2, 3, 4, 5, 8]);
