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
  /** The saved session its runs start with (`session_id`); null: the website's capture_options session_id, if any. */
  sessionId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export type ScenarioDraft = Omit<ScenarioProps, 'id' | 'createdAt' | 'updatedAt'>;
export type ScenarioChanges = Partial<Pick<ScenarioProps, 'name' | 'description' | 'websiteId' | 'steps' | 'sessionId'>>;

/**
 * The saved session a run's job names (`sessionId` in its options), by precedence: the asker's (a schedule's
 * session_id), else the scenario's; neither: left out, and the runner takes the website's capture_options session_id
 * (scenario-runner.ts).
 */
export function runSession(askerSessionId: number | null, scenarioSessionId: number | null): { sessionId?: number } {
  const sessionId = askerSessionId ?? scenarioSessionId;
  return sessionId === null ? {} : { sessionId };
}

/** The session a run starts with: its job's (runSession), else the website's capture_options session_id; none: undefined. */
export function sessionOfRun(jobSessionId: number | undefined, websiteSessionId: number | undefined): number | undefined {
  return jobSessionId ?? websiteSessionId;
}
