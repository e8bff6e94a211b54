import type { Micros } from '../../db/time.ts';

/** Migration 0015: BloodHound's feature flags and application parameters. */
interface Stamped {
  created_at: Micros;
  updated_at: Micros;
  deleted_at: Micros | null;
}

export interface FeatureFlagTable extends Stamped {
  id: number;
  key: string;
  name: string;
  description: string;
  enabled: 0 | 1;
  user_updatable: 0 | 1;
}

export interface ParameterTable extends Stamped {
  id: number;
  key: string;
  name: string;
  description: string;
  /** JSON object. */
  value: string;
}

export interface AppConfigTables {
  feature_flags: FeatureFlagTable;
  parameters: ParameterTable;
}
