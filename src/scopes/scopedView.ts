/**
 * What a tool sees for a scoped key: the scoped catalog, the data restricted to the scope's rows
 * (enforced in the data layer, restrictedData.ts) and the knowledge without passages that name
 * hidden data. Built once per scope and reused: a scope is a handful of filters, but building the
 * catalog view on every tool call would be waste.
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import { restrictRows } from '../data/restrictedData.ts';
import { DEFAULT_SEARCH_LIMIT } from '../knowledge/knowledgeBase.ts';
import type { KnowledgeBase } from '../skills/api.ts';
import { describeScope, type DataScope } from './dataScope.ts';
import { mentionsAny, scopeCatalog } from './scopedCatalog.ts';

export interface ScopedView {
  catalog: Catalog;
  data: DataAccess;
  knowledge: KnowledgeBase | undefined;
  /** Words that reveal hidden data; any text shown to a scoped key (knowledge files) must not hold them. */
  hiddenTerms: string[];
}

/** Searched more widely than asked, so leaving out hidden passages still fills the page. */
const SEARCH_WIDTH = 50;

/**
 * Views by scope, for one catalog and data; the knowledge may change (skill reloads), so it is
 * passed at each call and views built over an older one are dropped.
 * @example
 * const views = new ScopedViews(catalog, data);
 * const { catalog: visible, data: rows } = views.viewFor({ values: { company: ['1000'] } }, knowledge);
 */
export class ScopedViews {
  private views = new Map<string, ScopedView>();
  private knowledgeOfViews: KnowledgeBase | undefined;

  constructor(
    private readonly catalog: Catalog,
    private readonly data: DataAccess,
  ) {}

  viewFor(scope: DataScope, knowledge: KnowledgeBase | undefined): ScopedView {
    if (knowledge !== this.knowledgeOfViews) {
      this.views = new Map();
      this.knowledgeOfViews = knowledge;
    }
    const key = describeScope(scope);
    let view = this.views.get(key);
    if (!view) {
      const scoped = scopeCatalog(this.catalog, scope);
      view = {
        catalog: scoped.catalog,
        data: restrictRows(this.data, scoped.restrictions),
        knowledge: knowledge && scopedKnowledge(knowledge, scoped.hiddenTerms),
        hiddenTerms: scoped.hiddenTerms,
      };
      this.views.set(key, view);
    }
    return view;
  }
}

/** Knowledge search without the passages that name hidden data (values, their names, hidden sources). */
function scopedKnowledge(knowledge: KnowledgeBase, hiddenTerms: readonly string[]): KnowledgeBase {
  if (hiddenTerms.length === 0) return knowledge;
  return {
    search: (query, options = {}) =>
      knowledge
        .search(query, { ...options, limit: SEARCH_WIDTH })
        .filter((passage) => !mentionsAny(`${passage.heading}\n${passage.text}`, hiddenTerms))
        .slice(0, options.limit ?? DEFAULT_SEARCH_LIMIT),
    skills: () => knowledge.skills(),
  };
}
