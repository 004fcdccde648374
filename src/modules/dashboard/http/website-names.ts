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

  /** Every website of the account (id and name), newest first, for the gallery's filter. */
  async all(accountId: number): Promise<Array<{ id: number; name: string }>> {
    const out: Array<{ id: number; name: string }> = [];
    // Page after page through the keyset cursor (each read starts after the last row seen: no OFFSET to walk).
    for (let page = await this.websites.list(accountId, { page: 1, perPage: 100 }); ;) {
      out.push(...page.items.map((w) => ({ id: w.id, name: w.name })));
      if (out.length >= page.total || page.items.length < 100 || !page.edges) return out;
      page = await this.websites.list(accountId, { page: 1 + out.length / 100, perPage: 100, from: { after: page.edges.last } });
    }
  }
}
