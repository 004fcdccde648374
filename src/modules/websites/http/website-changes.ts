import { WebsiteChanges } from '../domain/website';
import { toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { CreateWebsiteDto, UpdateWebsiteDto } from './website.dto';

/** A validated body in the domain's names (also used by the dashboard's website form). */
export function toChanges(dto: CreateWebsiteDto | UpdateWebsiteDto): WebsiteChanges {
  const changes: WebsiteChanges = {};
  if (dto.name !== undefined) changes.name = dto.name;
  if (dto.url !== undefined) changes.url = dto.url;
  if (dto.viewport_width !== undefined) changes.viewportWidth = dto.viewport_width;
  if (dto.viewport_height !== undefined) changes.viewportHeight = dto.viewport_height;
  if (dto.full_page !== undefined) changes.fullPage = dto.full_page;
  if (dto.status !== undefined) changes.status = dto.status;
  if (dto.capture_options !== undefined) changes.captureOptions = toCaptureOptions(dto.capture_options);
  if (dto.change_threshold !== undefined) changes.changeThreshold = dto.change_threshold;
  if (dto.change_ignore_selectors !== undefined) changes.changeIgnoreSelectors = dto.change_ignore_selectors;
  return changes;
}
