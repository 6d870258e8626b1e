/**
 * What a tool sees for a scoped key: the scoped catalog, the data restricted to the scope's rows
 * (enforced in the data layer, restrictedData.ts) and the knowledge without passages that concern
 * or name hidden data (one rule for every text a scoped key reads: hiddenWords.ts). Built once
 * per scope and reused: a scope is a handful of filters, but building the catalog view on every
 * tool call would be waste.
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import { restrictRows } from '../data/restrictedData.ts';
import type { KnowledgeBase } from '../skills/sdk/tools.ts';
import { describeScope, type DataScope } from './dataScope.ts';
import { showsPassage, type HiddenData } from './hiddenWords.ts';
import { scopeCatalog } from './scopedCatalog.ts';

export interface ScopedView {
  catalog: Catalog;
  data: DataAccess;
  knowledge: KnowledgeBase | undefined;
  /** Words that reveal hidden data; any text shown to a scoped key (knowledge files) must not hold them. */
  hiddenTerms: string[];
  /** What is hidden (sources, values) and the words naming it: the rule for every text the key reads. */
  hidden: HiddenData;
}

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
        knowledge: knowledge && scopedKnowledge(knowledge, scoped.hidden),
        hiddenTerms: scoped.hiddenTerms,
        hidden: scoped.hidden,
      };
      this.views.set(key, view);
    }
    return view;
  }
}

/** Knowledge search without the passages that concern or name hidden data (sources, values, their words). */
function scopedKnowledge(knowledge: KnowledgeBase, hidden: HiddenData): KnowledgeBase {
  if (hidden.terms.length === 0 && hidden.sources.length === 0 && Object.keys(hidden.allowed).length === 0) return knowledge;
  return {
    search: (query, options = {}) =>
      knowledge.search(query, { ...options, shown: (passage, concerns) => showsPassage(hidden, `${passage.heading}\n${passage.text}`, concerns) && (options.shown?.(passage, concerns) ?? true) }),
    skills: () => knowledge.skills(),
  };
}
