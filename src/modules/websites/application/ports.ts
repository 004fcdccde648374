import { Page, PageRequest } from '../../../shared/domain/page-request';
import { WebsiteChanges, WebsiteDraft, WebsiteProps } from '../domain/website';

export abstract class WebsiteRepository {
  abstract create(draft: WebsiteDraft, now: Date): Promise<WebsiteProps>;
  /** Scoped to the account: another account's website is simply not found. */
  abstract findOwned(accountId: number, id: number): Promise<WebsiteProps | null>;
  abstract findById(id: number): Promise<WebsiteProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<WebsiteProps>>;
  abstract update(id: number, changes: WebsiteChanges, now: Date): Promise<WebsiteProps>;
  abstract delete(id: number): Promise<void>;
  abstract markCaptured(id: number, at: Date): Promise<void>;
  /** The account's websites whose saved capture options name the saved session `sessionId` (`session_id`). */
  abstract usingSession(accountId: number, sessionId: number): Promise<Array<{ id: number; name: string }>>;
}

/**
 * Other contexts clean up what hangs off a website (queued jobs before, screenshot files after it is deleted);
 * they register here so the websites context does not depend on them.
 */
export type WebsiteDeletionListener = (website: WebsiteProps) => Promise<void>;
