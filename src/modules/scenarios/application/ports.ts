import { Page, PageRequest } from '../../../shared/domain/page-request';
import { ScenarioChanges, ScenarioDraft, ScenarioProps } from '../domain/scenario';

export abstract class ScenarioRepository {
  abstract create(draft: ScenarioDraft, now: Date): Promise<ScenarioProps>;
  abstract findOwned(accountId: number, id: number): Promise<ScenarioProps | null>;
  abstract findById(id: number): Promise<ScenarioProps | null>;
  abstract list(accountId: number, page: PageRequest, filter: { websiteId?: number }): Promise<Page<ScenarioProps>>;
  abstract update(id: number, changes: ScenarioChanges, now: Date): Promise<ScenarioProps>;
  abstract delete(id: number): Promise<void>;
  /** The account's scenarios whose own session_id is `sessionId` (an indexed column), by id. */
  abstract usingSession(accountId: number, sessionId: number): Promise<Array<{ id: number; name: string }>>;
}
