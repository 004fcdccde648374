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
