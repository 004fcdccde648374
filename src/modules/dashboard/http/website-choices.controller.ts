import { Get, Query } from '@nestjs/common';
import { DashboardQueries, WebsiteChoices } from '../application/dashboard-queries';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-request';
import { idQuery, pickerSearch } from './responses';
import { PICKER_LIMIT } from './views/components';

/**
 * The choices of a website picker as its search is typed (dashboard.js): the same indexed query that draws the
 * picker, so the script only saves a round trip of the whole page. Without script the picker's own form searches.
 */
@DashboardController()
export class WebsiteChoicesController {
  constructor(private readonly queries: DashboardQueries) {}

  @Get('website-choices')
  choices(@Viewer() viewer: DashboardViewer, @Query('site') site?: string, @Query('selected') selected?: string): Promise<WebsiteChoices> {
    return this.queries.websiteChoices(viewer.account.id, pickerSearch(site), idQuery(selected), PICKER_LIMIT);
  }
}
