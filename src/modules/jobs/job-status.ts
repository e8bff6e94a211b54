/**
 * Job status (CONTRACT §6; BloodHound `model/jobs.go`): sent as the integer; the `status` filter takes
 * a name (any case) or the integer. Aliases are spellings people use for the same state.
 */
export const JobStatus = {
  invalid: -1,
  ready: 0,
  running: 1,
  complete: 2,
  canceled: 3,
  timedout: 4,
  failed: 5,
  ingesting: 6,
  analyzing: 7,
  partiallycomplete: 8,
} as const;

export const JOB_STATUS_FILTER: Record<string, number> = {
  ...JobStatus,
  cancelled: JobStatus.canceled,
  timed_out: JobStatus.timedout,
  partially_complete: JobStatus.partiallycomplete,
};

/** States a client may report through POST /jobs/end. */
export const END_STATES: readonly number[] = [JobStatus.complete, JobStatus.failed, JobStatus.partiallycomplete];
/** States an administrator may cancel from. */
export const CANCELABLE: readonly number[] = [JobStatus.ready, JobStatus.running];
/** Finished states: what GET /jobs/finished and a client's completed jobs list (and completed_job_count counts). */
export const FINISHED_STATES: readonly number[] = [
  JobStatus.complete, JobStatus.canceled, JobStatus.timedout, JobStatus.failed, JobStatus.partiallycomplete,
];
