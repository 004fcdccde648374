import { Step } from './steps';

export const SCENARIO_RULES = { nameMax: 255, descriptionMax: 2000 } as const;

export interface ScenarioProps {
  id: number;
  accountId: number;
  websiteId: number;
  name: string;
  description: string | null;
  /** The spec shows `active`; scenarios have no other state yet. */
  status: 'active';
  steps: Step[];
  createdAt: Date;
  updatedAt: Date;
}

export type ScenarioDraft = Omit<ScenarioProps, 'id' | 'createdAt' | 'updatedAt'>;
export type ScenarioChanges = Partial<Pick<ScenarioProps, 'name' | 'description' | 'websiteId' | 'steps'>>;

/** Element steps wait this long by default for their element (SCENARIO_STEP_TIMEOUT_MS). */
export const DEFAULT_STEP_TIMEOUT_MS = 10_000;
