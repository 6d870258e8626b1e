/**
 * Calls on the sample data for each built-in tool, covering its main result shapes; tools of
 * other skills are exercised through the examples they declare. `{comparison_id}` is filled in
 * from the first compare_sources result.
 */
const december = { company: '1000', period: '2024012' };
const fiVsBpc = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: december };
const actualVsBudget = { source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount', filters: { company: '1000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } };

export const sampleCalls: Record<string, Record<string, unknown>[]> = {
  list_sources: [{}],
  query_source: [{ source: 'fi_reporting', dimensions: ['period'], filters: { company: '1000' } }, { source: 'fi_reporting' }, { source: 'fi_reporting', dimensions: ['company', 'period', 'group_account'], limit: 50 }],
  compare_sources: [fiVsBpc, actualVsBudget, { ...fiVsBpc, filters: { company: '1000' }, align_on: ['company', 'period', 'group_account'] }],
  list_differences: [{ comparison_id: '{comparison_id}' }],
  explain_difference: [{ comparison_id: '{comparison_id}' }, { comparison: fiVsBpc }, { comparison: actualVsBudget, key: {} }],
  find_duplicates: [{ source: 'fi_reporting' }, { source: 'fi_reporting', filters: { period: '2024012' } }],
  find_blank_values: [{ source: 'fi_reporting' }, { source: 'bpc_reporting' }],
  find_outlier_periods: [{ source: 'fi_reporting' }, { source: 'consolidation_mart' }],
  search_knowledge: [{ query: 'why does consolidation differ from FI' }, { query: 'zebra' }],
  load_skill: [{ name: 'data_analyst' }],
};

