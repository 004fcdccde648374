import { Injectable } from '@nestjs/common';
import { WebsitesService } from '../../websites/application/websites.service';

/** Names of an account's websites by id, for pages that list things belonging to several websites. */
@Injectable()
export class WebsiteNames {
  constructor(private readonly websites: WebsitesService) {}

  async of(accountId: number, ids: Iterable<number>): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    for (const id of new Set(ids)) {
      const website = await this.websites.find(accountId, id);
      if (website) names.set(id, website.name);
    }
    return names;
  }
}
